"""The guides stay true: every API path they name exists in the OpenAPI
document (with the method they name), and every link in the README and the
guides points to a file inside the repository. The maintainer's map
(ARCHITECTURE.md, CONTRIBUTING.md) and each part's README, where the
README's feature specifications live, are held to the same checks."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

import pytest

# Not for the checks themselves: the session teardown in tests/conftest.py
# connects to the database, which fails on PostgreSQL when no test of the run
# set the test database up (e.g. this file run alone).
pytestmark = pytest.mark.django_db

REPO = Path(__file__).resolve().parent.parent.parent
README = REPO / "README.md"
GUIDES = sorted((REPO / "docs").rglob("*.md"))
# The maintainer's map and each part's README: what moved out of the README
# (feature specifications, benchmarks) keeps its links checked there.
MAPS = [
    REPO / "ARCHITECTURE.md",
    REPO / "CONTRIBUTING.md",
    # Hidden folders are tools' caches (pytest writes .pytest_cache/README.md), not ours.
    *sorted(p for p in REPO.glob("*/README.md") if not p.parent.name.startswith(".")),
]
LINKED_FILES = [README, *GUIDES, *MAPS]

# Pages ninja serves beside the operations; they are not operations themselves.
NON_OPERATION_PATHS = {"/api/v1/docs", "/api/v1/openapi.json"}

_METHODS = "GET|POST|PUT|PATCH|DELETE"
_API_PATH = re.compile(r"/api/v1(?:/[A-Za-z0-9_\-{}$.…]+)*/?")
_METHOD_BEFORE_PATH = re.compile(rf"\b({_METHODS})\s+`?(/api/v1/[^\s`\"')?#]*)")
_PLACEHOLDER = re.compile(r"^(\{[^/{}]+\}|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?)$")
_FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_REFERENCE_LINK = re.compile(r"^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$", re.MULTILINE)
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")


def _relative(path: Path) -> str:
    return str(path.relative_to(REPO))


def _normalise(path: str) -> str:
    """``/api/v1/users/{external_id}`` and ``/api/v1/users/$USER_ID`` both
    become ``/api/v1/users/{}``: the guide's name for a parameter is free."""
    path = path.rstrip(".…,:;").rstrip("/") or path
    segments = ["{}" if _PLACEHOLDER.match(s) else s for s in path.split("/")]
    return "/".join(segments)


def _api_paths(text: str) -> set[str]:
    found = set()
    for match in _API_PATH.finditer(text):
        path = _normalise(match.group(0))
        if path not in ("/api/v1", ""):
            found.add(path)
    return found


def _curl_commands(text: str) -> list[str]:
    """Each curl command on one line (backslash continuations joined)."""
    joined = re.sub(r"\\\n\s*", " ", text)
    return [line for line in joined.splitlines() if re.search(r"\bcurl\b", line)]


def _named_methods(text: str) -> set[tuple[str, str]]:
    """(method, path) pairs the guide states: ``POST /api/v1/…`` in prose, and
    curl commands (``-X METHOD``, else POST with a body, else GET)."""
    pairs = {(m.group(1), _normalise(m.group(2))) for m in _METHOD_BEFORE_PATH.finditer(text)}
    for command in _curl_commands(text):
        explicit = re.search(rf"(?:-X|--request)\s+({_METHODS})\b", command)
        if explicit:
            method = explicit.group(1)
        elif re.search(r"\s(-d|--data\S*|--json|-F|--form)\s", command):
            method = "POST"
        else:
            method = "GET"
        for path in _api_paths(command):
            pairs.add((method, path))
    return pairs


@pytest.fixture(scope="module")
def operations() -> dict[str, set[str]]:
    """The OpenAPI document's paths (normalised) and their methods."""
    from config.api import api

    schema = api.get_openapi_schema()
    return {
        _normalise(path): {method.upper() for method in item}
        for path, item in schema["paths"].items()
    }


def test_there_are_guides_to_check():
    names = {path.name for path in GUIDES}
    assert {"README.md", "host-integration.md", "events-client.md"} <= names, names


@pytest.mark.parametrize("guide", [*GUIDES, *MAPS], ids=_relative)
def test_every_api_path_in_the_guides_exists_in_the_openapi_document(guide, operations, client):
    text = guide.read_text(encoding="utf-8")
    unknown = sorted(
        path for path in _api_paths(text) - NON_OPERATION_PATHS if path not in operations
    )
    assert unknown == [], f"{_relative(guide)} names API paths the API does not have: {unknown}"
    for page in _api_paths(text) & NON_OPERATION_PATHS:
        assert client.get(page).status_code == 200, page


@pytest.mark.parametrize("guide", [*GUIDES, *MAPS], ids=_relative)
def test_every_method_the_guides_name_is_the_one_the_api_takes(guide, operations):
    text = guide.read_text(encoding="utf-8")
    wrong = sorted(
        f"{method} {path} (the API takes {', '.join(sorted(operations[path]))})"
        for method, path in _named_methods(text)
        if path in operations and method not in operations[path]
    )
    assert wrong == [], f"{_relative(guide)} names the wrong method: {wrong}"


def test_the_host_guide_shows_every_operation_of_the_api(operations):
    """A new route is not done until the host guide shows how to call it."""
    guide = REPO / "docs" / "host-integration.md"
    shown = _named_methods(guide.read_text(encoding="utf-8"))
    missing = sorted(
        f"{method} {path}"
        for path, methods in operations.items()
        for method in methods
        if (method, path) not in shown
    )
    assert missing == [], f"docs/host-integration.md does not show: {missing}"


def test_the_path_check_sees_placeholders_and_methods():
    """The extraction itself: a check that finds nothing would always pass."""
    text = (
        "Call `PATCH /api/v1/servers/{server_id}` or\n"
        '```sh\ncurl -X DELETE "$SWB/api/v1/grants/$GRANT_ID" \\\n  -H "x: y"\n'
        'curl "$SWB/api/v1/subscriptions?user=dana"\n'
        "curl \"$SWB/api/v1/host/endpoint\" -d '{}'\n```\n"
    )
    assert _api_paths(text) == {
        "/api/v1/servers/{}",
        "/api/v1/grants/{}",
        "/api/v1/subscriptions",
        "/api/v1/host/endpoint",
    }
    assert _named_methods(text) == {
        ("PATCH", "/api/v1/servers/{}"),
        ("DELETE", "/api/v1/grants/{}"),
        ("GET", "/api/v1/subscriptions"),
        ("POST", "/api/v1/host/endpoint"),
    }


# --- links ---------------------------------------------------------------------------


def _without_code(text: str) -> str:
    return _INLINE_CODE.sub("", _FENCE.sub("", text))


def _links(path: Path) -> list[str]:
    text = _without_code(path.read_text(encoding="utf-8"))
    return [m.group(1) for m in _LINK.finditer(text)] + [
        m.group(1) for m in _REFERENCE_LINK.finditer(text)
    ]


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip()).lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    text = _FENCE.sub("", path.read_text(encoding="utf-8"))
    return {_slug(m.group(1)) for m in re.finditer(r"^#{1,6}\s+(.+?)\s*#*\s*$", text, re.M)}


def test_the_link_check_sees_links_and_skips_code():
    sample = REPO / "var" / "link-sample.md"
    sample.parent.mkdir(exist_ok=True)
    sample.write_text(
        '[a](docs/x.md) ![b](static/y.png "t") `[c](not/a/link.md)`\n'
        "```\n[d](not/either.md)\n```\n[e]: https://example.com\n",
        encoding="utf-8",
    )
    try:
        assert _links(sample) == ["docs/x.md", "static/y.png", "https://example.com"]
    finally:
        sample.unlink()
    assert _slug("8. The host endpoint: deliveries `Switchboard` sends you") == (
        "8-the-host-endpoint-deliveries-switchboard-sends-you"
    )


@pytest.mark.parametrize("document", LINKED_FILES, ids=_relative)
def test_links_stay_inside_the_repository(document):
    outside = sorted(link for link in _links(document) if _SCHEME.match(link))
    assert outside == [], (
        f"{_relative(document)} links outside the repository (name the URL in text, "
        f"or link a guide in docs/): {outside}"
    )


@pytest.mark.parametrize("document", LINKED_FILES, ids=_relative)
def test_every_relative_link_points_to_a_file_in_the_repository(document):
    broken = []
    for link in _links(document):
        if _SCHEME.match(link):
            continue  # reported by the test above
        target_text, _, fragment = link.partition("#")
        target = (document.parent / unquote(target_text)).resolve() if target_text else document
        if not target.is_relative_to(REPO) or not target.exists():
            broken.append(f"{link} (no such file)")
        elif fragment and target.suffix == ".md" and fragment not in _anchors(target):
            broken.append(f"{link} (no such heading)")
    assert broken == [], f"{_relative(document)} has broken links: {broken}"


# --- the verification example ----------------------------------------------------------


def _python_block_defining(guide: Path, name: str) -> str:
    blocks = re.findall(r"^```python\n(.*?)^```", guide.read_text(encoding="utf-8"), re.M | re.S)
    matching = [block for block in blocks if f"def {name}(" in block]
    assert len(matching) == 1, f"{_relative(guide)} should define {name} in one python block"
    return matching[0]


def test_the_guides_verification_example_accepts_our_signatures_and_nothing_else():
    """Run the guide's own code against headers signed by the code that signs
    real deliveries, during a secret rotation (two signatures)."""
    import json

    from standardwebhooks import WebhookVerificationError

    from outbox.signing import sign_outbound, webhook_secret_new

    example: dict = {}
    exec(_python_block_defining(REPO / "docs" / "host-integration.md", "verify_delivery"), example)
    current, previous = webhook_secret_new(), webhook_secret_new()
    body = json.dumps(
        {"type": "ping", "timestamp": "2026-11-24T15:07:01.123Z", "data": {}},
        separators=(",", ":"),
    )
    headers = sign_outbound(webhook_id="msg_example", body=body, secrets_=[current, previous])

    for secret in (current, previous):
        example["SECRET"] = secret
        assert example["verify_delivery"](body.encode(), headers)["type"] == "ping"

    example["SECRET"] = webhook_secret_new()
    with pytest.raises(WebhookVerificationError):
        example["verify_delivery"](body.encode(), headers)
    example["SECRET"] = current
    reserialised = json.dumps(json.loads(body), indent=1).encode()
    with pytest.raises(WebhookVerificationError):
        example["verify_delivery"](reserialised, headers)
