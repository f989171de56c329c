"""The account's pages: the inbox, where each kind of event goes, tokens and webhooks."""

from __future__ import annotations

from datetime import timedelta

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from arena.integrations import selectors, services
from arena.integrations.events import KINDS
from arena.integrations.models import ApiToken, Webhook
from tournaments.models import Tournament

# The session key of a new token's key or a new webhook's secret, until the page shows it.
SHOW_ONCE = "integrations_show_once"


def _errors(form: forms.Form, exc: ValidationError) -> None:
    for field, messages_ in exc.message_dict.items():
        form.add_error(field if field in form.fields else None, messages_)


@login_required
def inbox(request):
    if request.method == "POST":
        services.mark_read(user=request.user)
        return redirect("inbox")
    rows = selectors.notifications(user=request.user)
    return render(request, "integrations/inbox.html", {"rows": rows})


@login_required
def channel_settings(request):
    if request.method == "POST":
        for kind in KINDS:
            services.set_channels(
                user=request.user,
                kind=kind,
                inbox=f"{kind}:inbox" in request.POST,
                email=f"{kind}:email" in request.POST,
                webhooks=f"{kind}:webhooks" in request.POST,
            )
        messages.success(request, "Saved where each kind of event goes.")
        return redirect("notification-settings")
    return render(
        request,
        "integrations/settings.html",
        {"rows": selectors.channel_rows(user=request.user), "email": request.user.email},
    )


class TokenForm(forms.Form):
    name = forms.CharField(max_length=60, help_text="what uses it, e.g. ci-upload")
    scopes = forms.MultipleChoiceField(
        choices=ApiToken.Scope.choices, widget=forms.CheckboxSelectMultiple
    )
    days = forms.IntegerField(
        required=False,
        min_value=1,
        max_value=3650,
        label="Expires after (days)",
        help_text="empty: never",
    )


@login_required
def token_list(request):
    form = TokenForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        days = form.cleaned_data["days"]
        try:
            _, key = services.create_token(
                user=request.user,
                name=form.cleaned_data["name"],
                scopes=form.cleaned_data["scopes"],
                expires_at=timezone.now() + timedelta(days=days) if days else None,
            )
        except ValidationError as exc:
            _errors(form, exc)
        else:
            # Shown by the next page alone (a reload of it does not post the form again).
            request.session[SHOW_ONCE] = key
            return redirect("tokens")
    new_key = request.session.pop(SHOW_ONCE, None) if request.method == "GET" else None
    context = {"form": form, "new_key": new_key, "rows": selectors.tokens(user=request.user)}
    return render(request, "integrations/tokens.html", context)


@login_required
@require_POST
def token_revoke(request, pk: int):
    token = get_object_or_404(ApiToken, pk=pk, user=request.user)
    services.revoke_token(token=token)
    messages.success(request, f"Revoked {token.prefix}…: it authenticates nothing from now on.")
    return redirect("tokens")


class WebhookForm(forms.Form):
    url = forms.URLField(max_length=500, label="URL", assume_scheme="https")
    format = forms.ChoiceField(
        choices=[("", "by the URL"), *Webhook.Format.choices],
        required=False,
        help_text="Discord and Slack incoming-webhook URLs get their own format",
    )
    events = forms.MultipleChoiceField(
        choices=list(KINDS.items()),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="none ticked: every kind",
    )
    tournament = forms.ModelChoiceField(
        queryset=Tournament.objects.none(),
        required=False,
        empty_label="my own events",
        help_text="or every event of a tournament you organise",
    )

    def __init__(self, *args, user, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["tournament"].queryset = Tournament.objects.filter(organiser=user).order_by(
            "-id"
        )


@login_required
def webhook_list(request):
    form = WebhookForm(request.POST or None, user=request.user)
    if request.method == "POST" and form.is_valid():
        tournament = form.cleaned_data["tournament"]
        try:
            hook = services.create_webhook(
                user=request.user,
                url=form.cleaned_data["url"],
                events=form.cleaned_data["events"],
                format=form.cleaned_data["format"],
                tournament_id=tournament.pk if tournament else None,
            )
        except ValidationError as exc:
            _errors(form, exc)
        else:
            request.session[SHOW_ONCE] = hook.secret
            return redirect("webhooks")
    secret = request.session.pop(SHOW_ONCE, None) if request.method == "GET" else None
    context = {"form": form, "secret": secret, "rows": selectors.webhooks(user=request.user)}
    return render(request, "integrations/webhooks.html", context)


@login_required
def webhook_detail(request, pk: int):
    hook = get_object_or_404(Webhook, pk=pk, user=request.user)
    return render(
        request,
        "integrations/webhook_detail.html",
        {"hook": hook, "deliveries": selectors.deliveries(webhook=hook)},
    )


@login_required
@require_POST
def webhook_action(request, pk: int, action: str):
    hook = get_object_or_404(Webhook.objects.select_related("user"), pk=pk, user=request.user)
    if action == "test":
        try:
            services.send_test(webhook=hook)
            messages.success(request, "A test is on its way: its delivery shows below.")
        except ValidationError as exc:
            messages.error(request, " ".join(exc.messages))
    elif action == "enable":
        services.turn_on(webhook=hook)
        messages.success(request, "The webhook is on again.")
    elif action == "delete":
        hook.delete()
        messages.success(request, "Webhook deleted.")
        return redirect("webhooks")
    else:
        raise Http404("no such action")
    return redirect("webhook", pk=pk)
