"""The project's own modules import each other without circles, and none is over 600 lines.

The graph holds one node per module of the five installed folders (named as installed, through
pyproject.toml's ``package-dir`` mapping) and one edge per import of another such module: relative
imports and ``engram_conformance.<part>`` absolute ones, at module level or inside functions, but
not under ``if TYPE_CHECKING:``. ``from . import x`` is an edge to the submodule ``x`` when ``x``
is one, else to the package itself; the parent packages Python runs on the way count as no edge.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from importlib import import_module
from pathlib import Path

from engram_conformance.conformance import contracts

from .layout import REPO_ROOT, contract_packages, package_dirs

MAX_LINES = 600

#: The circles allowed to stay for now, each as the set of its modules (short names: without the
#: ``engram_conformance.`` prefix). The test fails on any circle not listed here and on any
#: listed circle that is gone or has changed, so this list can only shrink. None is left (issue
#: 13 broke the checks' circle of 25 modules and the CLI's of 4).
KNOWN_CIRCLES: list[frozenset[str]] = []


def modules() -> dict[str, Path]:
    """Every module of the project, by its installed dotted name."""
    found: dict[str, Path] = {}
    for package, folder in package_dirs().items():
        for path in sorted(folder.rglob("*.py")):
            parts = path.relative_to(folder).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join((package, *parts))] = path
    return found


def is_package(path: Path) -> bool:
    return path.name == "__init__.py"


def is_type_checking(test: ast.expr) -> bool:
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


def import_nodes(node: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement under ``node``, skipping the bodies of ``if TYPE_CHECKING:``."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.Import | ast.ImportFrom):
            yield child
        elif isinstance(child, ast.If) and is_type_checking(child.test):
            for orelse in child.orelse:
                yield from import_nodes(ast.Module(body=[orelse], type_ignores=[]))
        else:
            yield from import_nodes(child)


def imported(name: str, path: Path, statement: ast.Import | ast.ImportFrom, known: set[str]):
    """The project modules one import statement of module ``name`` (at ``path``) names."""
    if isinstance(statement, ast.Import):
        for alias in statement.names:
            if alias.name in known:
                yield alias.name
        return
    if statement.level:
        package = name if is_package(path) else name.rpartition(".")[0]
        for _ in range(statement.level - 1):
            package = package.rpartition(".")[0]
        base = f"{package}.{statement.module}" if statement.module else package
    else:
        base = statement.module or ""
    for alias in statement.names:
        submodule = f"{base}.{alias.name}"
        if submodule in known:
            yield submodule
        elif base in known:
            yield base


def import_graph() -> dict[str, set[str]]:
    found = modules()
    known = set(found)
    graph: dict[str, set[str]] = {name: set() for name in found}
    for name, path in found.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for statement in import_nodes(tree):
            graph[name].update(t for t in imported(name, path, statement, known) if t != name)
    return graph


def strongly_connected(graph: dict[str, set[str]]) -> list[set[str]]:
    """Tarjan's algorithm: the graph's strongly connected components."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component: set[str] = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            components.append(component)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return components


def short(name: str) -> str:
    return name.removeprefix("engram_conformance.")


def circles() -> list[frozenset[str]]:
    return [
        frozenset(short(m) for m in component)
        for component in strongly_connected(import_graph())
        if len(component) > 1
    ]


def describe(circle: frozenset[str]) -> str:
    return f"{len(circle)} modules: " + ", ".join(sorted(circle))


def test_the_graph_sees_the_projects_imports() -> None:
    graph = import_graph()
    assert (
        "engram_conformance.conformance.executor" in graph["engram_conformance.conformance.runner"]
    )
    assert (
        "engram_conformance.conformance.engram_memory.checks.families"
        in graph["engram_conformance.conformance.engram_memory.plugin"]
    )
    assert (
        "engram_conformance.spec.engram_memory"
        in graph["engram_conformance.reference_impl.engram_memory.service"]
    )


def test_tarjan_finds_a_circle_and_leaves_a_tree_alone() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert sorted(map(sorted, strongly_connected(graph))) == [["a", "b", "c"], ["d"]]


def test_no_new_import_circle() -> None:
    found = circles()
    new = [circle for circle in found if circle not in KNOWN_CIRCLES]
    gone = [circle for circle in KNOWN_CIRCLES if circle not in found]
    message = [f"new import circle, {describe(circle)}" for circle in new]
    message += [
        f"listed circle gone or changed (shrink KNOWN_CIRCLES), {describe(c)}" for c in gone
    ]
    assert not message, "\n".join(message)


def family_modules() -> dict[str, set[str]]:
    """Registered contract -> the modules its checks are written in: one per family."""
    found = {}
    for name in contracts.names():
        checks = contracts.contract(name).checks()
        written = [*checks.scripted.values(), *checks.per_call.values()]
        found[name] = {check.function.__module__ for check in written}
    return found


def leaf_breaches(graph: dict[str, set[str]], families: set[str]) -> dict[str, list[str]]:
    """The modules other than the ``families`` module of their package that import a family
    module, and which."""
    allowed = {family.rpartition(".")[0] + ".families" for family in families}
    return {
        short(importer): sorted(short(f) for f in targets & families)
        for importer, targets in graph.items()
        if importer not in allowed and targets & families
    }


def test_every_family_module_is_a_leaf() -> None:
    """Only ``families.py`` imports a family module, in every registered contract: what
    families share lives in the contract's support modules or the core."""
    graph = import_graph()
    families = family_modules()
    assert set(families) >= {"engram-memory", "mem"}
    for contract, modules in families.items():
        assert len(modules) > 10, contract
        assert not leaf_breaches(graph, modules), f"{contract}: {leaf_breaches(graph, modules)}"


def run_order_problems(order: list[str], families: set[str]) -> list[str]:
    """What is wrong with a contract's run order (``families.RUN_ORDER``, by module name) for
    the modules its checks are written in: a module listed twice, one left out, one listed
    that holds no check."""
    problems = [
        f"listed twice: {name}" for name in sorted({n for n in order if order.count(n) > 1})
    ]
    problems += [f"not in the run order: {name}" for name in sorted(families - set(order))]
    problems += [f"holds no check: {name}" for name in sorted(set(order) - families)]
    return problems


def test_every_family_has_its_place_in_the_run_order() -> None:
    """Each contract's ``families.RUN_ORDER`` lists every module its checks are written in,
    once: the order the checks run in is declared, not the order of the imports."""
    for contract, modules in family_modules().items():
        [package] = {module.rpartition(".")[0] for module in modules}
        order = [module.__name__ for module in import_module(f"{package}.families").RUN_ORDER]
        assert run_order_problems(order, modules) == [], contract


def test_a_run_order_that_repeats_leaves_out_or_invents_a_family_is_caught() -> None:
    order = ["c.checks.one", "c.checks.one", "c.checks.gone"]
    assert run_order_problems(order, {"c.checks.one", "c.checks.two"}) == [
        "listed twice: c.checks.one",
        "not in the run order: c.checks.two",
        "holds no check: c.checks.gone",
    ]


def test_a_family_importing_another_is_caught() -> None:
    families = {"c.checks.one", "c.checks.two"}
    graph = {"c.checks.families": families, "c.checks.one": {"c.checks.two"}, "c.checks.two": set()}
    assert leaf_breaches(graph, families) == {"c.checks.one": ["c.checks.two"]}


def over_the_limit(paths: dict[str, Path]) -> dict[str, int]:
    """The modules of ``paths`` (name -> file) longer than MAX_LINES, with their length."""
    lengths = {
        name: len(path.read_text(encoding="utf-8").splitlines()) for name, path in paths.items()
    }
    return {name: lines for name, lines in lengths.items() if lines > MAX_LINES}


def test_no_module_is_over_600_lines() -> None:
    long = over_the_limit({short(name): path for name, path in modules().items()})
    assert not long, "modules over 600 lines: " + ", ".join(
        f"{name} ({lines})" for name, lines in sorted(long.items())
    )


def test_a_module_over_600_lines_is_caught(tmp_path: Path) -> None:
    at_the_limit, over = tmp_path / "at.py", tmp_path / "over.py"
    at_the_limit.write_text("x = 1\n" * MAX_LINES, encoding="utf-8")
    over.write_text("x = 1\n" * (MAX_LINES + 1), encoding="utf-8")
    assert over_the_limit({"at": at_the_limit, "over": over}) == {"over": MAX_LINES + 1}


def contract_crossings(graph: dict[str, set[str]], packages: set[str]) -> dict[str, list[str]]:
    """The modules outside every contract's sub-packages (``packages``: their names, the same
    in each part) that import a contract's module, and which."""

    def of_a_contract(module: str) -> bool:
        segments = module.split(".")
        return len(segments) > 2 and segments[2] in packages

    crossing = {
        short(module): sorted(short(name) for name in imports if of_a_contract(name))
        for module, imports in graph.items()
        if not of_a_contract(module)
    }
    return {module: names for module, names in crossing.items() if names}


def test_the_core_imports_no_contract() -> None:
    """No module outside a contract's sub-packages imports one of them, for every registered
    contract: the core reaches a contract through the registry, which names its modules by
    string (``spec.registry``)."""
    packages = set(contract_packages().values())
    assert packages >= {"engram_memory", "mem"}
    assert contract_crossings(import_graph(), packages) == {}


def test_a_core_module_importing_a_contract_is_caught() -> None:
    graph = {
        "engram_conformance.conformance.runner": {"engram_conformance.conformance.mem.plugin"},
        "engram_conformance.conformance.mem.plugin": {"engram_conformance.conformance.runner"},
        "engram_conformance.reports.sarif": {"engram_conformance.spec.engram_memory"},
    }
    assert contract_crossings(graph, {"engram_memory", "mem"}) == {
        "conformance.runner": ["conformance.mem.plugin"],
        "reports.sarif": ["spec.engram_memory"],
    }


HARNESS = "engram_conformance.conformance"
CLI = f"{HARNESS}.cli"


def absolute_imports(path: Path) -> set[str]:
    """The modules the file at ``path`` imports by absolute name (outside TYPE_CHECKING)."""
    names: set[str] = set()
    for statement in import_nodes(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(statement, ast.Import):
            names.update(alias.name for alias in statement.names)
        elif not statement.level and statement.module:
            names.add(statement.module)
    return names


def of_the_command_line(module: str) -> bool:
    return any(module == name or module.startswith(f"{name}.") for name in ("click", CLI))


def test_only_the_command_line_imports_click() -> None:
    """In the harness, only ``conformance.cli`` knows the command line: the library run API,
    reproductions, the pytest plugin and the benchmarks import neither click nor a command
    module (the reference server's own command, ``engram-reference``, is no part of it)."""
    graph = import_graph()
    harness = {
        name: path
        for name, path in modules().items()
        if name.startswith(HARNESS) and not of_the_command_line(name)
    }
    wrong = {
        short(name)
        for name, path in harness.items()
        if any(map(of_the_command_line, absolute_imports(path) | graph[name]))
    }
    wrong |= {
        str(path.relative_to(REPO_ROOT))
        for path in sorted((REPO_ROOT / "benchmarks").glob("*.py"))
        if any(map(of_the_command_line, absolute_imports(path)))
    }
    assert len(harness) > 20 and f"{HARNESS}.pytest_plugin" in harness
    assert not wrong, f"modules outside conformance.cli that import the command line: {wrong}"
