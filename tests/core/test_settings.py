import pytest
from django.core.exceptions import ImproperlyConfigured

from switchboard.env import env_bool, env_int, env_list, env_seconds


def test_readers_parse_good_values(monkeypatch):
    monkeypatch.setenv("X_BOOL", "yes")
    monkeypatch.setenv("X_INT", "42")
    monkeypatch.setenv("X_SECONDS", "0.25")
    monkeypatch.setenv("X_LIST", "a, b,,c")
    assert env_bool("X_BOOL", False) is True
    assert env_int("X_INT", 1) == 42
    assert env_seconds("X_SECONDS", 1) == 0.25
    assert env_list("X_LIST", []) == ["a", "b", "c"]


@pytest.mark.parametrize(
    ("reader", "value"),
    [
        (lambda: env_bool("X", False), "maybe"),
        (lambda: env_int("X", 1), "4x"),
        (lambda: env_seconds("X", 1), "-3"),
        (lambda: env_int("X", 1, minimum=2), "1"),
    ],
)
def test_readers_fail_loudly_naming_the_variable(monkeypatch, reader, value):
    monkeypatch.setenv("X", value)
    with pytest.raises(ImproperlyConfigured, match="X"):
        reader()


def test_settings_refuse_an_http_public_url_without_private_targets(tmp_path):
    import subprocess
    import sys

    env = {
        "PATH": "/usr/bin:/bin",
        "ALLOW_PRIVATE_TARGETS": "0",
        "PUBLIC_BASE_URL": "http://127.0.0.1:8000",
        "SWITCHBOARD_VAR_DIR": str(tmp_path),
        "REDIS_URL": "redis://127.0.0.1:1/0",
        "DJANGO_SETTINGS_MODULE": "config.settings",
    }
    result = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        env=env,
        capture_output=True,
        text=True,
        cwd=str(__import__("pathlib").Path(__file__).parents[2]),
    )
    assert result.returncode != 0 and "ALLOW_PRIVATE_TARGETS" in result.stderr


def test_secure_cookies_follow_the_public_scheme(tmp_path):
    import subprocess
    import sys

    code = "from django.conf import settings as s; print(s.SESSION_COOKIE_SECURE, s.SECURE_HSTS_SECONDS > 0)"
    base = {
        "PATH": "/usr/bin:/bin",
        "SWITCHBOARD_VAR_DIR": str(tmp_path),
        "REDIS_URL": "redis://127.0.0.1:1/0",
        "DJANGO_SETTINGS_MODULE": "config.settings",
    }
    root = str(__import__("pathlib").Path(__file__).parents[2])
    https = subprocess.run(
        [sys.executable, "-c", code],
        env={**base, "PUBLIC_BASE_URL": "https://sb.example"},
        capture_output=True,
        text=True,
        cwd=root,
    )
    http = subprocess.run(
        [sys.executable, "-c", code],
        env={**base, "PUBLIC_BASE_URL": "http://127.0.0.1:8000", "ALLOW_PRIVATE_TARGETS": "1"},
        capture_output=True,
        text=True,
        cwd=root,
    )
    assert https.stdout.split() == ["True", "True"], https.stderr
    assert http.stdout.split() == ["False", "False"], http.stderr
    assert (tmp_path / "secrets" / "secret_key").exists()
    assert (tmp_path / "secrets" / "field_encryption_key").exists()


def _manage(tmp_path, *args, **env):
    """``manage.py`` in a clean environment, as a newcomer's shell has it."""
    import pathlib
    import subprocess
    import sys

    root = pathlib.Path(__file__).parents[2]
    base = {
        "PATH": "/usr/bin:/bin",
        "SWITCHBOARD_VAR_DIR": str(tmp_path),
        "REDIS_URL": "redis://127.0.0.1:1/0",
    }
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        env={**base, **env},
        capture_output=True,
        text=True,
        cwd=root,
        timeout=120,
    )


def test_the_development_defaults_work_together_without_any_switch(tmp_path):
    result = _manage(tmp_path, "check")
    assert result.returncode == 0, result.stderr
    shown = _manage(
        tmp_path,
        "shell",
        "-v",
        "0",
        "-c",
        "from django.conf import settings as s; "
        "print(s.PUBLIC_BASE_URL, s.ALLOW_PRIVATE_TARGETS, s.TASK_EVENT_SOURCES,"
        " s.AUDIT_CHECKPOINT_BEAT)",
    )
    # Task event sources (a draft, docs/events-client.md §8) stay off unless turned on;
    # beat signs checkpoints unless turned off (the tests' processes do).
    assert shown.stdout.split() == ["http://127.0.0.1:8000", "True", "False", "True"], shown.stderr


@pytest.mark.parametrize(
    ("env", "named"),
    [
        ({}, "PUBLIC_BASE_URL"),  # the development default is not a production address
        ({"PUBLIC_BASE_URL": "http://sb.example.com"}, "https://"),
        ({"PUBLIC_BASE_URL": "https://127.0.0.1:8000"}, "loopback"),
        ({"PUBLIC_BASE_URL": "https://sb.example.com", "DEBUG": "1"}, "DEBUG"),
        (
            {"PUBLIC_BASE_URL": "https://sb.example.com", "ALLOW_PRIVATE_TARGETS": "1"},
            "ALLOW_PRIVATE_TARGETS",
        ),
    ],
)
def test_production_refuses_development_settings_naming_them(tmp_path, env, named):
    result = _manage(tmp_path, "check", SWITCHBOARD_ENV="production", **env)
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr and named in result.stderr, result.stderr


def test_production_with_a_public_https_address_starts(tmp_path):
    result = _manage(
        tmp_path, "check", SWITCHBOARD_ENV="production", PUBLIC_BASE_URL="https://sb.example.com"
    )
    assert result.returncode == 0, result.stderr


def test_deploy_checks_pass_with_production_settings(tmp_path):
    result = _manage(
        tmp_path,
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        SWITCHBOARD_ENV="production",
        PUBLIC_BASE_URL="https://sb.example.com",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout, result.stdout


def test_pages_carry_a_content_security_policy_that_allows_only_our_own_files(client):
    answer = client.get("/")
    policy = dict(
        part.strip().split(" ", 1) for part in answer["Content-Security-Policy"].split(";")
    )
    assert policy["script-src"] == "'self'" and policy["style-src"] == "'self'"
    assert policy["frame-ancestors"] == "'none'" and policy["object-src"] == "'none'"


def test_importing_the_settings_connects_to_nothing_and_starts_nothing(tmp_path):
    """Settings only read: with REDIS_URL unset they name the local Redis
    without asking it; make run and the tests' bootstrap find (or start) one."""
    import pathlib
    import subprocess
    import sys

    code = """
import socket, subprocess
def refused(*args, **kwargs):
    raise AssertionError(f"the settings reached out: {args!r}")
socket.create_connection = refused
socket.socket.connect = refused
subprocess.Popen.__init__ = refused
from django.conf import settings
print(settings.REDIS_URL, settings.CELERY_BROKER_URL)
"""
    env = {
        "PATH": "/usr/bin:/bin",
        "SWITCHBOARD_VAR_DIR": str(tmp_path),
        "EMBEDDED_REDIS_PORT": "6391",
        "DJANGO_SETTINGS_MODULE": "config.settings",
    }
    result = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        capture_output=True,
        text=True,
        cwd=pathlib.Path(__file__).parents[2],
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["redis://127.0.0.1:6379/0"] * 2
    assert not (tmp_path / "redis").exists()  # no embedded server's directory either


def test_the_checkpoint_key_is_generated_into_var_secrets_once_and_reused(tmp_path):
    import base64
    import subprocess
    import sys

    root = str(__import__("pathlib").Path(__file__).parents[2])
    # The public key the console would sign with, as a fresh process reads it.
    code = (
        "import base64, django; django.setup(); from switchboard import tlog; "
        "from switchboard.services.ledger_checkpoints import signing_key; "
        "print(base64.b64encode(tlog.public_key_bytes(signing_key())).decode())"
    )
    base = {
        "PATH": "/usr/bin:/bin",
        "SWITCHBOARD_VAR_DIR": str(tmp_path),
        "REDIS_URL": "redis://127.0.0.1:1/0",
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "PUBLIC_BASE_URL": "http://127.0.0.1:8000",
        "ALLOW_PRIVATE_TARGETS": "1",
    }

    def public_key(**env) -> str:
        ran = subprocess.run(
            [sys.executable, "-c", code],
            env={**base, **env},
            capture_output=True,
            text=True,
            cwd=root,
            timeout=120,
        )
        assert ran.returncode == 0, ran.stderr
        return ran.stdout.strip()

    stored = tmp_path / "secrets" / "checkpoint_signing_key"
    assert not stored.exists()
    first = public_key()
    seed = stored.read_text()
    assert len(base64.b64decode(seed.strip())) == 32 and stored.stat().st_mode & 0o077 == 0
    # Reused, not generated again: the next start signs with the same key.
    assert public_key() == first and stored.read_text() == seed
    # The environment's key, when given, wins and leaves the file alone.
    other = public_key(AUDIT_CHECKPOINT_SIGNING_KEY=base64.b64encode(bytes(range(32))).decode())
    assert other != first and stored.read_text() == seed
