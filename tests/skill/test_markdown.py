"""Markdown structure with file line numbers."""

from __future__ import annotations

from aces_ci.skill import find_mentions, html_comments, parse_markdown, strip_html_comments


def test_headings_links_and_code_blocks_carry_file_lines():
    text = (
        "# Title\n\nSee [guide](references/guide.md) and `scripts/run.py`.\n\n"
        "## Usage\n\n```bash\npython scripts/fmt.py\n```\n"
    )
    doc = parse_markdown(text, first_line=5)
    assert [(h.level, h.text, h.line) for h in doc.headings] == [(1, "Title", 5), (2, "Usage", 9)]
    links = {(link.target, link.kind, link.line) for link in doc.links}
    assert links == {
        ("references/guide.md", "link", 7),
        ("scripts/run.py", "mention", 7),
        ("scripts/fmt.py", "mention", 12),
    }
    assert [(c.info, c.line) for c in doc.code_blocks] == [("bash", 11)]


def test_link_in_multiline_paragraph_points_at_its_line():
    doc = parse_markdown("first line\nsecond line\nthird [x](a.md) line\n", first_line=1)
    assert [(link.target, link.line) for link in doc.links] == [("a.md", 3)]


def test_sections_count_content_and_subsections():
    doc = parse_markdown("# A\n\n## Empty\n\n## Full\ntext\n\n### Sub\nmore\n", first_line=1)
    by_title = {s.heading.text: s for s in doc.sections}
    assert by_title["Empty"].content_lines == 0 and not by_title["Empty"].has_subsections
    assert by_title["Full"].content_lines == 1 and by_title["Full"].has_subsections
    assert by_title["A"].end_line == 9


def test_comments_are_collected_with_lines():
    doc = parse_markdown("text\n<!-- aces-ci: ignore REF001 generated -->\n", first_line=10)
    assert doc.comments == ((11, "aces-ci: ignore REF001 generated"),)


def test_mentions_skip_urls_and_prose():
    assert find_mentions("see https://example.com/docs/file.md and notes/todo.md") == ["notes/todo.md"]
    assert find_mentions("use scripts/build.sh, then references/api.md.") == [
        "scripts/build.sh",
        "references/api.md",
    ]
    assert find_mentions("version 1.2 and e.g. i.e.") == []


def test_pathological_nesting_does_not_crash():
    doc = parse_markdown("> " * 5000 + "deep\n" + "- " * 3000 + "list\n")
    assert doc.line_count == 2


def test_html_comments_stop_at_the_first_unclosed_one():
    text = "a\n<!-- one -->\n<!-->\nstill the second -->\n<!-- never closed\n<!-- nor this\n"
    found = [(c.line, c.inner.strip()) for c in html_comments(text, first_line=3)]
    assert found == [(4, "one"), (5, ">\nstill the second")]
    assert strip_html_comments(text) == "a\n\n\n<!-- never closed\n<!-- nor this\n"


def test_comment_only_lines_are_not_section_content():
    doc = parse_markdown("# A\n\n## B\n<!-- later -->\n<!-- a --> <!-- b -->\n\n## C\n<!-- c --> text\n")
    by_title = {s.heading.text: s.content_lines for s in doc.sections}
    assert by_title == {"A": 0, "B": 0, "C": 1}


def test_links_in_a_long_paragraph_point_at_their_own_lines():
    lines = [f"step {n} reads [part {n}](references/part-{n}.md) and `scripts/tool-{n}.py`" for n in range(400)]
    doc = parse_markdown("\n".join(lines) + "\n", first_line=10)
    by_target = {link.target: link.line for link in doc.links}
    assert by_target["references/part-0.md"] == 10
    assert by_target["references/part-399.md"] == 409
    assert by_target["scripts/tool-250.py"] == 260


def test_a_repeated_path_in_one_paragraph_points_at_its_first_line():
    doc = parse_markdown("see `scripts/run.py`\nthen again `scripts/run.py`\n")
    assert [link.line for link in doc.links] == [1, 1]


def test_blocks_keep_every_top_level_range_in_file_lines():
    text = (
        "# Title\n"  # 3
        "\n"
        "Lead-in line\n"  # 5
        "continues:\n"  # 6
        "\n"
        "- first item\n"  # 8
        "\n"
        "  its continuation\n"  # 10
        "\n"
        "  ```bash\n"  # 12
        "  run.sh\n"
        "  ```\n"  # 14
        "- second\n"  # 15
        "  - sub-bullet\n"  # 16
        "\n"
        "1. ordered\n"  # 18
        "2) other\n"  # 19
        "\n"
        "| a | b |\n"  # 21
        "|---|---|\n"
        "| 1 | 2 |\n"  # 23
        "\n"
        "> quoted\n"  # 25
        "> - not a top-level item\n"  # 26
        "\n"
        "---\n"  # 28
        "<div>\n"  # 29
        "</div>\n"  # 30
        "\n"
        "~~~\n"  # 32
        "fenced\n"
        "~~~\n"  # 34
        "Setext\n"  # 35
        "======\n"  # 36
    )
    doc = parse_markdown(text, first_line=3)
    got = [(b.kind, b.start, b.end, b.level, b.marker, b.ordered) for b in doc.blocks]
    assert got == [
        ("heading", 3, 3, 1, "", False),
        ("paragraph", 5, 6, 0, "", False),
        ("list_item", 8, 14, 0, "-", False),
        ("list_item", 15, 16, 0, "-", False),
        ("list_item", 18, 18, 0, "1.", True),
        ("list_item", 19, 19, 0, "2)", True),
        ("table", 21, 23, 0, "", False),
        ("blockquote", 25, 26, 0, "", False),
        ("thematic_break", 28, 28, 0, "", False),
        ("html", 29, 30, 0, "", False),
        ("code", 32, 34, 0, "~~~", False),
        ("heading", 35, 36, 1, "", False),
    ]


def test_blocks_of_an_indented_code_block_and_an_empty_text():
    assert [(b.kind, b.start, b.end) for b in parse_markdown("para\n\n    code\n    more\n\n\n").blocks] == [
        ("paragraph", 1, 1),
        ("code", 3, 4),
    ]
    assert parse_markdown("").blocks == ()
