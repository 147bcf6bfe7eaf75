"""The interactive API docs work on a machine without internet access: every
asset the page needs comes from the console itself, not from a CDN."""

from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def test_the_api_docs_render_with_the_network_cut_off(live, page):
    own_origin = urlsplit(live.base_url).netloc
    elsewhere: list[str] = []
    console_errors: list[str] = []

    def cut_off_everything_but_the_console(route):
        if urlsplit(route.request.url).netloc == own_origin:
            route.continue_()
        else:
            elsewhere.append(route.request.url)
            route.abort("internetdisconnected")

    page.route("**/*", cut_off_everything_but_the_console)
    page.on("console", lambda msg: msg.type == "error" and console_errors.append(msg.text))
    page.on("pageerror", lambda exc: console_errors.append(str(exc)))

    page.goto(f"{live.base_url}/api/v1/docs")

    # Swagger UI drew itself from the schema: the title and an operation block.
    # The console builds the schema on its first request (seconds on a loaded
    # machine), so the wait is longer than expect()'s default 5 s.
    expect(page.locator("#swagger-ui .info .title")).to_contain_text(
        "Switchboard host API", timeout=30_000
    )
    servers_list = page.locator(
        ".opblock-get .opblock-summary-path[data-path='/api/v1/servers']"
    ).first
    expect(servers_list).to_be_visible()
    servers_list.click()
    expect(page.locator(".opblock-get.is-open .opblock-body").first).to_be_visible()
    page.wait_for_load_state("networkidle")

    assert elsewhere == [], f"the docs page reached beyond the console: {elsewhere}"
    assert console_errors == [], f"console errors on the docs page: {console_errors}"


@pytest.mark.django_db
def test_the_docs_page_points_at_our_static_files(client):
    html = client.get("/api/v1/docs").content.decode()
    assert "/static/ninja/swagger-ui-bundle.js" in html
    assert "cdn" not in html.lower()


def test_collectstatic_gathers_the_docs_assets_for_production(settings, tmp_path):
    """Production serves STATIC_ROOT (whitenoise, no finders): the bundled
    Swagger UI must be among the collected files."""
    from django.core.management import call_command

    settings.STATIC_ROOT = tmp_path
    call_command("collectstatic", interactive=False, verbosity=0)
    for asset in ("swagger-ui-bundle.js", "swagger-ui.css", "swagger-ui-init.js"):
        assert (tmp_path / "ninja" / asset).is_file(), asset
