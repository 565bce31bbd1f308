"""What an upper app provides to a lower one (DESIGN §2: dependencies point one way).

Indexing and facts sit below the chat yet need to read its messages; they define a
protocol, and the chat registers an implementation when it starts (``ChatConfig.ready``).
A ``Provided`` holds that one implementation, and says who should have registered it when
nobody has.
"""

from __future__ import annotations

from typing import Generic, TypeVar

T = TypeVar("T")


class Provided(Generic[T]):
    def __init__(self, *, what: str, provider: str) -> None:
        self._what, self._provider = what, provider
        self._implementation: T | None = None

    def register(self, implementation: T) -> None:
        self._implementation = implementation

    def get(self) -> T:
        if self._implementation is None:
            raise RuntimeError(f"No {self._what} registered: is {self._provider} installed?")
        return self._implementation
