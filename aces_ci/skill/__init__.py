"""The skill artifact: discover skill packages, read them safely, and keep every line number.

This package imports nothing else of aces-ci: it is the floor the other rooms stand on.
"""

from ._discover import (
    CONVENTIONAL_ROOTS,
    LOWERCASE_SKILL_FILE,
    SKILL_FILE,
    discover_skills,
    iter_skill_dirs,
    load_skill,
)
from ._files import MAX_TEXT_BYTES, is_within, looks_binary, read_resource, read_text
from ._frontmatter import load_yaml_mapping, split_frontmatter
from ._markdown import HtmlComment, find_mentions, html_comments, parse_markdown, strip_html_comments
from ._model import (
    CodeBlock,
    Frontmatter,
    Heading,
    Link,
    MarkdownDoc,
    ParseProblem,
    Resource,
    ResourceKind,
    Section,
    Skill,
    TextFile,
)

__all__ = [
    "CONVENTIONAL_ROOTS",
    "LOWERCASE_SKILL_FILE",
    "MAX_TEXT_BYTES",
    "SKILL_FILE",
    "CodeBlock",
    "Frontmatter",
    "Heading",
    "HtmlComment",
    "Link",
    "MarkdownDoc",
    "ParseProblem",
    "Resource",
    "ResourceKind",
    "Section",
    "Skill",
    "TextFile",
    "discover_skills",
    "find_mentions",
    "html_comments",
    "is_within",
    "iter_skill_dirs",
    "load_skill",
    "load_yaml_mapping",
    "looks_binary",
    "parse_markdown",
    "read_resource",
    "read_text",
    "split_frontmatter",
    "strip_html_comments",
]
