"""Sans-I/O wire core: LSP framing, JSON-RPC 2.0 messages and error codes.

Bytes in, messages out; no threads, file descriptors or processes here.
"""

from .codec import load_fast
from .errors import BY_CODE, BY_TYPE, ErrorType, RpcError, to_wire_error
from .framing import (
    DEFAULT_MAX_BODY_BYTES,
    Frame,
    FrameDecoder,
    FrameError,
    encode_frame,
    link_body_limit,
)
from .jsonrpc import (
    Invalid,
    JsonObject,
    Message,
    Notification,
    Request,
    RequestId,
    Response,
    classify,
    encode_error,
    encode_notification,
    encode_request,
    encode_result,
    parse_message,
    to_jsonable,
    valid_utf8,
)

__all__ = [
    "BY_CODE",
    "BY_TYPE",
    "DEFAULT_MAX_BODY_BYTES",
    "ErrorType",
    "Frame",
    "FrameDecoder",
    "FrameError",
    "Invalid",
    "JsonObject",
    "Message",
    "Notification",
    "Request",
    "RequestId",
    "Response",
    "RpcError",
    "classify",
    "encode_error",
    "encode_frame",
    "encode_notification",
    "encode_request",
    "encode_result",
    "link_body_limit",
    "load_fast",
    "parse_message",
    "to_jsonable",
    "to_wire_error",
    "valid_utf8",
]
