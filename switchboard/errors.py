"""The one domain error type, mapped to the contract's JSON error format by a
single exception handler in ``switchboard.api``."""

from __future__ import annotations


class DomainError(Exception):
    status = 400
    code = "bad_request"

    def __init__(
        self,
        message: str,
        *,
        field: str | None = None,
        code: str | None = None,
        status: int | None = None,
        headers: dict[str, str] | None = None,
    ):
        super().__init__(message)
        self.message = message
        self.field = field
        if code:
            self.code = code
        if status:
            self.status = status
        self.headers = headers or {}

    def as_body(self) -> dict:
        error = {"code": self.code, "message": self.message}
        if self.field:
            error["field"] = self.field
        return {"error": error}


class NotFound(DomainError):
    status = 404
    code = "not_found"


class Invalid(DomainError):
    status = 422
    code = "invalid"


class Conflict(DomainError):
    status = 409
    code = "conflict"


class Forbidden(DomainError):
    status = 403
    code = "forbidden"


class Unavailable(DomainError):
    status = 503
    code = "unavailable"
