"""placeholder: its checks follow (issue 12)"""
