"""Report writers: the JSON report document rendered to JUnit XML, Markdown and HTML."""
