import json

from django import template
from django.core.serializers.json import DjangoJSONEncoder

register = template.Library()


@register.filter
def pretty_json(value) -> str:
    """Untrusted JSON shown as text: indented, never interpreted. The result is
    a plain string, so autoescaping still applies where it is rendered."""
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False, cls=DjangoJSONEncoder)
