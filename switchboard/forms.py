from django import forms


class AuditFilterForm(forms.Form):
    q = forms.CharField(
        required=False,
        max_length=200,
        label="Search the summaries",
        help_text='every word must appear; "a phrase" and -word work too',
    )
    kind = forms.CharField(
        required=False, max_length=60, help_text="e.g. consent. for every consent change"
    )
    user = forms.CharField(required=False, max_length=200, label="User (external id)")
    server = forms.CharField(required=False, max_length=40, label="Server id")
    subscription = forms.CharField(required=False, max_length=60, label="Subscription id")
    since = forms.DateTimeField(
        required=False, widget=forms.DateTimeInput(attrs={"type": "datetime-local"})
    )
    until = forms.DateTimeField(
        required=False, widget=forms.DateTimeInput(attrs={"type": "datetime-local"})
    )


class ServerRegisterForm(forms.Form):
    name = forms.CharField(max_length=200, label="Name people will see")
    url = forms.URLField(
        max_length=2000,
        label="MCP endpoint URL (Streamable HTTP)",
        assume_scheme="https",
        widget=forms.URLInput(attrs={"placeholder": "https://mcp.example.com/mcp"}),
    )
    headers = forms.CharField(
        required=False,
        label="Credentials: HTTP headers sent to the server, one per line",
        help_text="For example “Authorization: Bearer …”. Stored encrypted; never shown again.",
        widget=forms.Textarea(attrs={"rows": 3, "autocomplete": "off", "spellcheck": "false"}),
    )
    trust = forms.ChoiceField(
        choices=[("untrusted", "Not trusted (default)"), ("trusted", "Trusted by this host")],
        initial="untrusted",
        widget=forms.RadioSelect,
        label="Trust",
    )

    def clean_headers(self) -> dict[str, str]:
        headers: dict[str, str] = {}
        for number, line in enumerate(self.cleaned_data["headers"].splitlines(), start=1):
            if not line.strip():
                continue
            name, sep, value = line.partition(":")
            if not sep or not name.strip() or " " in name.strip():
                raise forms.ValidationError(f"Line {number}: write “Header-Name: value”.")
            headers[name.strip()] = value.strip()
        return headers


class ApiKeyCreateForm(forms.Form):
    name = forms.CharField(
        max_length=100, label="Name (what uses this key)", help_text="e.g. “chat backend, prod”"
    )
