from django import forms


class AuditFilterForm(forms.Form):
    kind = forms.CharField(
        required=False, max_length=60, help_text="e.g. consent. for every consent change"
    )
    user = forms.CharField(required=False, max_length=200, label="User (external id)")
    server = forms.CharField(required=False, max_length=40, label="Server id")
    since = forms.DateTimeField(
        required=False, widget=forms.DateTimeInput(attrs={"type": "datetime-local"})
    )
    until = forms.DateTimeField(
        required=False, widget=forms.DateTimeInput(attrs={"type": "datetime-local"})
    )
