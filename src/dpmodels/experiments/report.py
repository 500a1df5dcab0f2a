"""One report over every reproduced result: ``report.md`` and a self-contained ``report.html``.

The report is rebuilt from what is on disk in the output folder (``OUT/ID/results.*``,
``table.md``, ``meta.json``, PNGs), so ids run one at a time accumulate into one report. Each
section gives what the id draws, how big the run was and what it cost here, the table beside the
paper's numbers, the figure(s), and the parts that were skipped with the reason. The HTML inlines
every PNG as base64 (one file to mail or archive); its Markdown subset (headings, paragraphs,
pipe tables, bold, code, images, lists) is converted here, without a Markdown dependency.
"""

from __future__ import annotations

import base64
import html
import json
import re
from pathlib import Path

from .registry import all_experiments

__all__ = ["write_report", "markdown_to_html"]


def _section(exp, exp_dir: Path, out: Path) -> list[str]:
    meta = {}
    if (exp_dir / "meta.json").exists():
        meta = json.loads((exp_dir / "meta.json").read_text())
    lines = [f"## {exp.id} — {exp.title}", ""]
    lines.append(f"**Draws:** {exp.draws}")
    lines.append("")
    if meta:
        size = meta.get("size", {})
        mode = "quick" if size.get("quick") else "full"
        if size.get("runs") is not None:
            mode += f", runs = {size['runs']}"
        load = meta.get("load_average_1min")
        src = f" (cells of {meta['source']})" if meta.get("source") else ""
        lines.append(
            f"**This run:** {mode} size{src}; {meta.get('rows', 0):,} result rows from {meta.get('cells', 0)} cells "
            f"({meta.get('cells_run', 0)} computed, {meta.get('cells_cached', 0)} reused) in "
            f"{meta.get('seconds', 0):.0f} s wall ({meta.get('cpu_seconds', 0):.0f} s CPU in the cells) with "
            f"{meta.get('workers', 1)} worker(s)"
            + (f" on Dask ({meta['dask']})" if meta.get("dask") else "")
            + (f", 1-min load average {load}" if load is not None else "")
            + f"; finished {meta.get('finished', '?')}."
        )
        if meta.get("cells_missing"):
            lines[-1] += (
                f" **Partial grid:** {meta['cells_missing']} of {meta.get('cells', 0)} cells had not run; "
                "the figures and tables below are drawn from the finished ones."
            )
        lines.append("")
    lines.append(f"**Full-size cost here:** {exp.full_cost}; quick: {exp.quick_cost}.")
    lines.append("")
    if exp.notes:
        lines += [exp.notes, ""]
    for s in meta.get("skipped", []):
        lines.append(f"- skipped {s}")
    if meta.get("skipped"):
        lines.append("")
    table = exp_dir / "table.md"
    if table.exists():
        lines += [table.read_text().rstrip(), ""]
    for png in sorted(exp_dir.glob("*.png")):
        rel = png.relative_to(out).as_posix()
        lines += [f"![{exp.id}]({rel})", ""]
    return lines


def write_report(out) -> tuple[Path, Path]:
    """Write ``out/report.md`` and ``out/report.html`` over every id with results in ``out``."""
    out = Path(out)
    done, missing = [], []
    for exp in all_experiments():
        d = out / exp.id
        if (d / "meta.json").exists() or (d / "table.md").exists():
            done.append(exp)
        else:
            missing.append(exp)
    lines = ["# Reproduction report", ""]
    lines.append(
        "Every result below was recomputed with this library's learners (`dpmodels reproduce`); the papers' "
        "published numbers stand beside ours where the texts give them. Tidy results: `ID/results.parquet` "
        "(or `.csv`), one row per fit and metric."
    )
    lines.append("")
    if done:
        lines.append("| id | result | figure(s) |")
        lines.append("|---|---|---|")
        for exp in done:
            n = len(list((out / exp.id).glob("*.png")))
            lines.append(f"| [{exp.id}](#{exp.id}) | {exp.title} | {n} |")
        lines.append("")
    if missing:
        lines.append(
            "Not run into this folder: "
            + ", ".join(
                f"{e.id}" + (f" (not available in this build: {e.unavailable})" if e.unavailable else "")
                for e in missing
            )
            + "."
        )
        lines.append("")
    for exp in done:
        lines += _section(exp, out / exp.id, out)
    md = "\n".join(lines).rstrip() + "\n"
    md_path = out / "report.md"
    md_path.write_text(md)
    html_path = out / "report.html"
    html_path.write_text(markdown_to_html(md, base=out, title="dpmodels reproduction report"))
    return md_path, html_path


# --------------------------------------------------------------------------- Markdown -> HTML
_CSS = """body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;line-height:1.45}
table{border-collapse:collapse;margin:1em 0;font-size:.88em}th,td{border:1px solid #ccc;padding:.25em .5em}
th{background:#f3f3f3}img{max-width:100%}code{background:#f4f4f4;padding:0 .2em}h2{border-top:1px solid #ddd;padding-top:1em}"""


def _inline(text: str, base: Path | None) -> str:
    def img(m):
        alt, src = m.group(1), m.group(2)
        path = (base / src) if base is not None else Path(src)
        if path.exists():
            data = base64.b64encode(path.read_bytes()).decode()
            return f'<img alt="{html.escape(alt)}" src="data:image/png;base64,{data}">'
        return f'<img alt="{html.escape(alt)}" src="{html.escape(src)}">'

    parts = re.split(r"(!\[[^\]]*\]\([^)]+\))", text)
    out = []
    for p in parts:
        m = re.fullmatch(r"!\[([^\]]*)\]\(([^)]+)\)", p)
        if m:
            out.append(img(m))
            continue
        s = html.escape(p, quote=False)
        s = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", s)
        s = re.sub(r"`([^`]+)`", r"<code>\1</code>", s)
        s = re.sub(r"\[([^\]]+)\]\(#([^)]+)\)", r'<a href="#\2">\1</a>', s)
        out.append(s)
    return "".join(out)


def markdown_to_html(md: str, base=None, title="report") -> str:
    """A small Markdown subset to standalone HTML (images inlined as base64 when found)."""
    base = Path(base) if base is not None else None
    body: list[str] = []
    para: list[str] = []
    lst: list[str] = []
    lines = md.splitlines()
    i = 0

    def flush():
        if para:
            body.append("<p>" + _inline(" ".join(para), base) + "</p>")
            para.clear()
        if lst:
            body.append("<ul>" + "".join(f"<li>{_inline(x, base)}</li>" for x in lst) + "</ul>")
            lst.clear()

    while i < len(lines):
        line = lines[i]
        if line.startswith("|"):
            flush()
            rows = []
            while i < len(lines) and lines[i].startswith("|"):
                rows.append([c.strip() for c in lines[i].strip().strip("|").split("|")])
                i += 1
            head, rest = rows[0], [r for r in rows[1:] if not all(set(c) <= set("-: ") for c in r)]
            t = ["<table><thead><tr>" + "".join(f"<th>{_inline(c, base)}</th>" for c in head) + "</tr></thead><tbody>"]
            t += ["<tr>" + "".join(f"<td>{_inline(c, base)}</td>" for c in r) + "</tr>" for r in rest]
            body.append("".join(t) + "</tbody></table>")
            continue
        m = re.match(r"(#{1,4}) (.*)", line)
        if m:
            flush()
            level = len(m.group(1))
            anchor = m.group(2).split(" ")[0] if level == 2 else ""
            body.append(f'<h{level} id="{html.escape(anchor)}">{_inline(m.group(2), base)}</h{level}>')
        elif line.startswith("- "):
            if para:
                flush()
            lst.append(line[2:])
        elif not line.strip():
            flush()
        else:
            para.append(line)
        i += 1
    flush()
    return (
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
        f"<style>{_CSS}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n"
    )
