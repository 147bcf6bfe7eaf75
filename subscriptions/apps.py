from django.apps import AppConfig


class SubscriptionsConfig(AppConfig):
    name = "subscriptions"
