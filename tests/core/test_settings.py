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
        "DJANGO_SETTINGS_MODULE": "switchboard.settings",
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
        "DJANGO_SETTINGS_MODULE": "switchboard.settings",
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
