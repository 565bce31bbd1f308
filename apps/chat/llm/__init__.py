"""LLM providers for the reply pipeline: the interface, Claude, and the offline provider.

`AnthropicProvider` lives in `apps.chat.llm.anthropic_provider` and is not imported here,
so that importing this package does not import the SDK.
"""

from apps.chat.llm.factory import get_llm_provider
from apps.chat.llm.offline import OfflineProvider
from apps.chat.llm.types import (
    DEFAULT_MAX_TOKENS,
    ChatTurn,
    CompletionTask,
    LLMProvider,
    ModelRole,
    ProviderError,
    StreamDone,
    StreamError,
    StreamEvent,
    TextDelta,
    ToolCall,
    ToolExecutor,
    ToolResult,
    ToolSpec,
    Usage,
)

__all__ = [
    "DEFAULT_MAX_TOKENS",
    "ChatTurn",
    "CompletionTask",
    "LLMProvider",
    "ModelRole",
    "OfflineProvider",
    "ProviderError",
    "StreamDone",
    "StreamError",
    "StreamEvent",
    "TextDelta",
    "ToolCall",
    "ToolExecutor",
    "ToolResult",
    "ToolSpec",
    "Usage",
    "get_llm_provider",
]
