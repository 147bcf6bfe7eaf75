"""Switchboard: the project package and the core app."""

from switchboard.celery import app as celery_app

__all__ = ["celery_app"]
