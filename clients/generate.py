"""Regenerate the host API clients from the API itself, or check they are current.

    .venv/bin/python clients/generate.py          # write clients/openapi.json and both clients
    .venv/bin/python clients/generate.py --check  # exit 1, naming each file, if any is stale

1. The OpenAPI document is taken from ``config.api`` (what ``/api/v1/openapi.json``
   serves), keys sorted, into ``clients/openapi.json``.
2. ``openapi-python-client`` (a pinned test dependency of the project) writes
   ``clients/python/switchboard_client/generated/``; ``@hey-api/openapi-ts`` (a
   pinned dev dependency in ``clients/typescript/package.json``, installed with
   ``npm ci``) writes ``clients/typescript/src/generated/``; ``tsc`` compiles the
   TypeScript package into ``dist/`` (checked in, so ``npm install
   ./clients/typescript`` needs no build step).

Both generators write into a temporary folder first, so a check and a
regeneration see exactly the same output; ``--check`` compares that output with
the checked-in files. The hand-written layer around the generated code is not
touched.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

CLIENTS = Path(__file__).resolve().parent
REPO = CLIENTS.parent
DOCUMENT = CLIENTS / "openapi.json"
PYTHON = CLIENTS / "python"
PYTHON_GENERATED = PYTHON / "switchboard_client" / "generated"
TYPESCRIPT = CLIENTS / "typescript"
TYPESCRIPT_GENERATED = TYPESCRIPT / "src" / "generated"
TYPESCRIPT_DIST = TYPESCRIPT / "dist"


class GeneratorMissing(RuntimeError):
    pass


def openapi_document() -> str:
    """The document the API serves, as the file holds it (sorted keys, 2-space indent)."""
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from config.api import api

    return json.dumps(api.get_openapi_schema(), indent=2, sort_keys=True) + "\n"


def _run(argv: list[str], **kwargs) -> None:
    """Run a generator step; on failure, say what it printed."""
    done = subprocess.run(argv, capture_output=True, text=True, **kwargs)
    if done.returncode != 0:
        raise RuntimeError(
            f"{' '.join(argv)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
        )


def _python_generator() -> Path:
    """``openapi-python-client`` beside this interpreter (the project's venv has it
    from the ``test`` extra), or where ``OPENAPI_PYTHON_CLIENT`` says."""
    named = os.environ.get("OPENAPI_PYTHON_CLIENT")
    candidate = Path(named) if named else Path(sys.executable).parent / "openapi-python-client"
    if not candidate.is_file():
        raise GeneratorMissing(
            f"openapi-python-client is not installed ({candidate}): it is in the project's "
            "`test` extra (make venv), or set OPENAPI_PYTHON_CLIENT to its path"
        )
    return candidate


def generate_python(document: Path, out: Path) -> None:
    generator = _python_generator()
    env = dict(os.environ)
    # Its post hooks run ruff (config in openapi-python-client.yml): the one installed
    # with the generator, so a regeneration and a check format alike.
    env["PATH"] = f"{generator.parent}{os.pathsep}{env.get('PATH', '')}"
    _run(
        [
            str(generator),
            "generate",
            "--path",
            str(document),
            "--meta",
            "none",
            "--output-path",
            str(out),
            "--config",
            str(PYTHON / "openapi-python-client.yml"),
            "--overwrite",
        ],
        env=env,
        cwd=out.parent,
    )


def _npm_bin(name: str) -> Path:
    path = TYPESCRIPT / "node_modules" / ".bin" / name
    if not path.exists():
        raise GeneratorMissing(
            f"{name} is not installed: run `npm ci` in {TYPESCRIPT.relative_to(REPO)}"
        )
    return path


def generate_typescript(document: Path, out: Path) -> Path:
    """The generated sources in ``out/src/generated`` and the compiled package in
    ``out/dist`` (compiled with the hand-written sources beside them)."""
    shutil.copytree(TYPESCRIPT / "src", out / "src", ignore=shutil.ignore_patterns("generated"))
    # package.json too: its "type": "module" makes tsc emit ES modules.
    for name in ("tsconfig.json", "package.json"):
        shutil.copy(TYPESCRIPT / name, out / name)
    _run(
        [
            str(_npm_bin("openapi-ts")),
            "--input",
            str(document),
            "--output",
            str(out / "src" / "generated"),
            "--plugins",
            "@hey-api/client-fetch",
            "@hey-api/typescript",
            "@hey-api/sdk",
            "--silent",
            "--no-log-file",
        ],
        cwd=TYPESCRIPT,
    )
    # tsc resolves the packages the sources import (standardwebhooks) from here.
    (out / "node_modules").symlink_to(TYPESCRIPT / "node_modules")
    _run([str(_npm_bin("tsc")), "-p", str(out / "tsconfig.json")], cwd=out)
    return out


def _files(root: Path) -> dict[str, bytes]:
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts
    }


def _differences(expected: Path, actual: Path) -> list[str]:
    """Files under ``actual`` (checked in) that are missing, extra or different
    from ``expected`` (just generated), byte for byte."""
    fresh, held = _files(expected), _files(actual) if actual.exists() else {}
    where = actual.relative_to(REPO)
    return sorted(
        [f"{where}/{name} (not checked in)" for name in fresh.keys() - held.keys()]
        + [f"{where}/{name} (no longer generated)" for name in held.keys() - fresh.keys()]
        + [
            f"{where}/{name} (differs)"
            for name in fresh.keys() & held.keys()
            if fresh[name] != held[name]
        ]
    )


def stale_files(document_text: str) -> list[str]:
    """Every checked-in file that regenerating from ``document_text`` would change."""
    stale: list[str] = []
    if not DOCUMENT.exists() or DOCUMENT.read_text(encoding="utf-8") != document_text:
        stale.append(f"{DOCUMENT.relative_to(REPO)} (differs from the API's document)")
    with tempfile.TemporaryDirectory(prefix="switchboard-clients-") as tmp:
        work = Path(tmp)
        document = work / "openapi.json"
        document.write_text(document_text, encoding="utf-8")
        (work / "python").mkdir()
        generate_python(document, work / "python" / "generated")
        typescript = generate_typescript(document, work / "typescript")
        stale += _differences(work / "python" / "generated", PYTHON_GENERATED)
        stale += _differences(typescript / "src" / "generated", TYPESCRIPT_GENERATED)
        stale += _differences(typescript / "dist", TYPESCRIPT_DIST)
    return stale


def write_all(document_text: str) -> None:
    DOCUMENT.write_text(document_text, encoding="utf-8")
    with tempfile.TemporaryDirectory(prefix="switchboard-clients-") as tmp:
        work = Path(tmp)
        (work / "python").mkdir()
        generate_python(DOCUMENT, work / "python" / "generated")
        typescript = generate_typescript(DOCUMENT, work / "typescript")
        for source, target in (
            (work / "python" / "generated", PYTHON_GENERATED),
            (typescript / "src" / "generated", TYPESCRIPT_GENERATED),
            (typescript / "dist", TYPESCRIPT_DIST),
        ):
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(source, target)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only say which files are stale")
    parser.add_argument(
        "--document",
        type=Path,
        help="check against this OpenAPI document instead of the API's (to see the check fail)",
    )
    args = parser.parse_args()
    text = args.document.read_text(encoding="utf-8") if args.document else openapi_document()
    if args.check:
        stale = stale_files(text)
        for line in stale:
            print(f"stale: {line}")
        if stale:
            print("Regenerate: .venv/bin/python clients/generate.py", file=sys.stderr)
        return 1 if stale else 0
    write_all(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
