from django import forms


class EndpointForm(forms.Form):
    url = forms.URLField(
        max_length=2000,
        label="Endpoint URL of your host (where deliveries are POSTed)",
        assume_scheme="https",
    )
