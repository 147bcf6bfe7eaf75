from switchboard.selectors.mcp_targets import identity_for, mcp_target_for, mcp_targets_for
from switchboard.services.users import user_credentials_set
from tests.factories import SYSTEM, make_server


def test_a_users_own_credentials_win_over_the_hosts(personas):
    server = make_server(personas.acme, "S", "http://127.0.0.1:9/mcp")
    server.headers = {"Authorization": "Bearer host"}
    server.save()
    user_credentials_set(
        user=personas.alice, server=server, headers={"Authorization": "Bearer alice"}, actor=SYSTEM
    )
    assert mcp_target_for(user_id=personas.alice.id, server=server).headers == {
        "Authorization": "Bearer alice"
    }
    assert mcp_target_for(user_id=personas.bob.id, server=server).headers == {
        "Authorization": "Bearer host"
    }
    assert identity_for(user_id=personas.alice.id, server=server) == "user"
    assert identity_for(user_id=personas.bob.id, server=server) == "host"
    assert set(mcp_targets_for(user_id=personas.alice.id, servers=[server])) == {server.id}


def test_credentials_are_set_over_the_api_and_never_returned(personas):
    server = make_server(personas.acme, "S", "http://127.0.0.1:9/mcp")
    response = personas.acme_api.put(
        f"/users/alice/servers/{server.id}/credentials",
        {"headers": {"Authorization": "Bearer secret-alice"}},
    )
    assert response.status_code == 204
    assert b"secret-alice" not in personas.acme_api.get(f"/servers/{server.id}").content
    assert b"secret-alice" not in personas.acme_api.get("/audit").content
    assert (
        mcp_target_for(user_id=personas.alice.id, server=server).headers["Authorization"]
        == "Bearer secret-alice"
    )
    assert "secret-alice" not in repr(mcp_target_for(user_id=personas.alice.id, server=server))
