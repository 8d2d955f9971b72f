"""The Jinja environment the comment template runs in: sandboxed, its filters the escapers,
and a `finalize` that escapes whatever the template forgot to. Templates are found in the
package (or the checkout's templates/) and, for a repository's own template, in its folder,
never outside it."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2
import jinja2.sandbox
import markupsafe

from roofbot.render.markdown.chart import chart_label
from roofbot.render.markdown.escape import (
    Field,
    Safe,
    href,
    html_text,
    md,
    md_code,
    num,
    pct,
    raw,
    url,
)

DEFAULT_TEMPLATE = "comment.md.j2"


def template_dirs() -> list[Path]:
    """Where the built-in templates are: inside the installed package (the wheel carries
    templates/ as roofbot/templates), else the repository's top-level templates/ (editable)."""
    dirs: list[Path] = []
    packaged = resources.files("roofbot").joinpath("templates")
    if packaged.is_dir():
        dirs.append(Path(str(packaged)))
    checkout = Path(__file__).resolve().parents[3] / "templates"
    if checkout.is_dir():
        dirs.append(checkout)
    return dirs


@functools.lru_cache(maxsize=8)
def environment(extra_dir: Path | None = None) -> jinja2.Environment:
    """The sandboxed environment (one per template folder: a template compiles once)."""
    search = ([extra_dir] if extra_dir else []) + template_dirs()
    env = jinja2.sandbox.SandboxedEnvironment(
        loader=ContainedLoader([str(d) for d in search]),
        autoescape=False,
        undefined=jinja2.StrictUndefined,
        finalize=_finalize,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    filters: dict[str, Callable[..., Any]] = {
        "md": md,
        "mdc": md_code,
        "html": html_text,
        "url": url,
        "href": href,
        "num": num,
        "pct": pct,
        "label": chart_label,
        "join": _join,
    }
    env.filters.update(filters)
    return env


def _finalize(value: object) -> object:
    """Applied to every `{{ }}` output: whatever the template did not escape is escaped here."""
    if value is None:
        return ""
    if isinstance(value, Safe | markupsafe.Markup | int | float) and not isinstance(value, bool):
        return value  # Markup: a macro's output, marked `| safe` in the template
    return md(value)


@jinja2.pass_eval_context
def _join(eval_ctx: Any, value: Iterable[Any], d: str = "", attribute: Any = None) -> Any:
    """Jinja's `join`, except that Fields joined stay one escaped Field (whose `raw` is the
    raw texts joined), so `| md(4000)` cuts the whole list as it did the plain one."""
    items = list(value)
    if attribute is not None:
        getter = jinja2.filters.make_attrgetter(eval_ctx.environment, attribute)
        items = [getter(i) for i in items]
    if items and all(isinstance(i, Safe) for i in items) and not isinstance(d, Field):
        field = Field(str(d).join(items))
        field.raw = str(d).join(str(raw(i)) for i in items)
        return field
    return jinja2.filters.do_join(eval_ctx, items, d)


class ContainedLoader(jinja2.FileSystemLoader):
    """A FileSystemLoader that refuses a template whose real path (links followed) is outside
    its search folders: a repository's template can't include a file from elsewhere."""

    def get_source(
        self, environment: jinja2.Environment, template: str
    ) -> tuple[str, str, Callable[[], bool]]:
        source, filename, uptodate = super().get_source(environment, template)
        real = Path(filename).resolve()
        roots = [Path(p).resolve() for p in self.searchpath]
        if not any(real.is_relative_to(r) for r in roots):
            raise jinja2.TemplateNotFound(f"{template} (outside the template folders)")
        return source, filename, uptodate


def load_template(template: str | Path | None = None) -> jinja2.Template:
    """The built-in comment template, or a repository's own (a path to a `.j2` file)."""
    if template is None:
        return environment().get_template(DEFAULT_TEMPLATE)
    path = Path(template)
    if not path.is_file():
        raise FileNotFoundError(f"template {template} not found")
    return environment(path.resolve().parent).get_template(path.name)
