"""Project wiring, the top floor: settings, URLs, ASGI and Celery apps, the API
root, the demo and the start pages. It may import every app; no app imports it."""

from config.celery import app as celery_app

__all__ = ["celery_app"]
