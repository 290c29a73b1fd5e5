"""The built-in harness: a small tool-using agent loop (list, read, write, run, final answer) over any model.

It needs no agent CLI, so it runs anywhere aces-ci runs, including against the embedded local
model, and its prompts and tools are ours to version (:data:`LOOP_PROTOCOL_VERSION`).
"""

from ._harness import LOOP_PROTOCOL_VERSION, BuiltinHarness, ClientFor
from ._loop import AGENT_NAME, AgentLoop, ModelCaller, model_seed, tool_definitions
from ._prompts import NUDGE, StagedSkill, system_prompt
from ._sandbox import ENV_ALLOWLIST, CommandResult, SandboxLimits, run_command, sandbox_env
from ._tools import FINAL_ANSWER, TOOL_SPECS, PathFence, ToolError, ToolOutput, WorkspaceTools

__all__ = [
    "AGENT_NAME",
    "ENV_ALLOWLIST",
    "FINAL_ANSWER",
    "LOOP_PROTOCOL_VERSION",
    "NUDGE",
    "TOOL_SPECS",
    "AgentLoop",
    "BuiltinHarness",
    "ClientFor",
    "CommandResult",
    "ModelCaller",
    "PathFence",
    "SandboxLimits",
    "StagedSkill",
    "ToolError",
    "ToolOutput",
    "WorkspaceTools",
    "model_seed",
    "run_command",
    "sandbox_env",
    "system_prompt",
    "tool_definitions",
]
