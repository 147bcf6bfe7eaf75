from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from switchboard.keys import is_well_formed
from switchboard.models import ApiKey, Host, User
from switchboard.services.hosts import api_key_authenticate


def _run(*args) -> list[str]:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue().strip().splitlines()


def test_create_host_prints_the_new_key_alone_on_the_last_line(db):
    key = _run("create_host", "Initech")[-1]
    assert is_well_formed(key)
    assert api_key_authenticate(key).host.name == "Initech"
    with pytest.raises(CommandError, match="already exists"):
        _run("create_host", "Initech")


def test_create_api_key_adds_a_working_key(db):
    _run("create_host", "Initech")
    key = _run("create_api_key", "Initech", "--name", "ci")[-1]
    assert api_key_authenticate(key) is not None
    assert ApiKey.objects.filter(host__name="Initech").count() == 2
    with pytest.raises(CommandError):
        _run("create_api_key", "Nope")


def test_create_staff_prints_a_one_time_login_link(db, client):
    _run("create_host", "Initech")
    link = _run("create_staff", "boss@initech.test", "--host", "Initech", "--role", "auditor")[-1]
    assert "/login/" in link
    user = User.objects.get(email="boss@initech.test")
    assert user.role == "auditor" and user.host == Host.objects.get(name="Initech")
    response = client.get("/" + link.split("/", 3)[3])
    assert response.status_code == 302 and response["Location"] == "/"
    assert client.get("/staff/").status_code == 200
