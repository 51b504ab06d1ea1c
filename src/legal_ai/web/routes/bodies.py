"""The JSON request bodies the route tables share: `Body` (unknown keys refused, no NUL in any
string) and `ReviewBody`, the review of a gated item. Each router's own bodies sit beside it.

A class's docstring is its OpenAPI description: the bodies below `Body` have none, on purpose."""

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator


class Body(BaseModel):
    """A JSON request body: unknown keys (an `actor`, a `reviewed_by`) are refused, and no
    string may carry a NUL character."""

    model_config = ConfigDict(extra="forbid")

    @field_validator("*", mode="after")
    @classmethod
    def _no_nul(cls, value: Any) -> Any:
        if _has_nul(value):
            raise ValueError("contains a NUL character")
        return value


def _has_nul(value: Any) -> bool:
    """Whether a NUL character is in a string, or in a string inside lists and dicts."""
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(_has_nul(k) or _has_nul(v) for k, v in value.items())
    if isinstance(value, list | tuple):
        return any(_has_nul(v) for v in value)
    return False


class ReviewBody(Body):
    decision: str = Field(max_length=20)
    reason: str | None = Field(default=None, max_length=2000)
    # The status the caller saw: when the item is no longer in it, nothing changes (409).
    expected_status: str | None = Field(default=None, max_length=20)
