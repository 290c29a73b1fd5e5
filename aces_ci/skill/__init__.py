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
from ._filemap import FileMap, files_digest
from ._files import MAX_TEXT_BYTES, is_within, looks_binary, read_resource, read_text
from ._frontmatter import load_yaml_mapping, split_frontmatter
from ._markdown import HtmlComment, find_mentions, html_comments, parse_markdown, strip_html_comments
from ._model import (
    Block,
    BlockKind,
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
from ._render import (
    RenderedSkill,
    RenderError,
    SkillCard,
    is_safe_name,
    read_skill_tree,
    safe_relative_path,
    skill_card,
)
from ._tree import EVALS_DIR, MAX_SKILL_BYTES, MAX_SKILL_FILES, SKIPPED_DIRS, is_skipped_dir

__all__ = [
    "CONVENTIONAL_ROOTS",
    "EVALS_DIR",
    "LOWERCASE_SKILL_FILE",
    "MAX_SKILL_BYTES",
    "MAX_SKILL_FILES",
    "MAX_TEXT_BYTES",
    "SKILL_FILE",
    "SKIPPED_DIRS",
    "Block",
    "BlockKind",
    "CodeBlock",
    "FileMap",
    "Frontmatter",
    "Heading",
    "HtmlComment",
    "Link",
    "MarkdownDoc",
    "ParseProblem",
    "RenderError",
    "RenderedSkill",
    "Resource",
    "ResourceKind",
    "Section",
    "Skill",
    "SkillCard",
    "TextFile",
    "discover_skills",
    "files_digest",
    "find_mentions",
    "html_comments",
    "is_safe_name",
    "is_skipped_dir",
    "is_within",
    "iter_skill_dirs",
    "load_skill",
    "load_yaml_mapping",
    "looks_binary",
    "parse_markdown",
    "read_resource",
    "read_skill_tree",
    "read_text",
    "safe_relative_path",
    "skill_card",
    "split_frontmatter",
    "strip_html_comments",
]
