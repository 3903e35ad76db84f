"""Images inside chat messages, stored once by content hash and referenced as `artifact:sha256:<hash>`."""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Callable
from typing import Any

_DATA_URI = re.compile(r"data:([\w/+.-]+);base64,(.*)", re.DOTALL)


def images_to_refs(message: dict[str, Any], put: Callable[[bytes, str], str] | None = None) -> dict[str, Any]:
    """`message` with every inline (data URI) image replaced by a reference to its content hash.

    `put(data, media_type) -> hash` stores the bytes (an artifact store); without it the hash is only computed.
    """
    content = message.get("content")
    if not isinstance(content, list):
        return message
    parts = []
    for part in content:
        url = part.get("image_url", {}).get("url", "") if isinstance(part, dict) else ""
        m = _DATA_URI.match(url)
        if m:
            data = base64.b64decode(m.group(2))
            digest = put(data, m.group(1)) if put is not None else hashlib.sha256(data).hexdigest()
            part = {**part, "image_url": {**part["image_url"], "url": f"artifact:sha256:{digest}"}}
        parts.append(part)
    return {**message, "content": parts}
