"""The account pages (sign up, log in), and the 429 answer every throttled form gives."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth import get_user_model, login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import UserCreationForm
from django.core.exceptions import NON_FIELD_ERRORS
from django.shortcuts import redirect, render
from django.urls import reverse, reverse_lazy
from django.utils.html import format_html
from django.utils.http import url_has_allowed_host_and_scheme, urlencode

from arena import throttling
from arena.dashboard.forms import ThrottledLoginForm

TOO_MANY_REQUESTS = 429


def throttled_form(
    request, form, context: dict, *throttle_classes, template: str = "arena/form.html"
):
    """The form again with the throttle's sentence, answered 429; None when not throttled.

    Every POST counts, as on the API, whether or not it then succeeds."""
    if request.method != "POST":
        return None
    message = throttling.refusal(request, *throttle_classes)
    if message is None:
        return None
    if form.is_bound:
        form.add_error(None, message)
    else:  # an empty POST body leaves the form unbound, with no errors to add to
        messages.error(request, message)
    return render(request, template, {"form": form, **context}, status=TOO_MANY_REQUESTS)


SIGN_UP_INTRO = (
    "An account lets you upload bots, enter them in tournaments and organise your own. "
    "Leaderboards, bots and replays stay open to everyone without one."
)


DISPLAY_NAME_HELP = (
    "Optional: the name shown beside your username (your real name, say, so a teacher "
    "knows whose bot is whose)."
)
EMAIL_HELP = "Optional: only to send you a link if you forget your password."


class SignUpForm(UserCreationForm):
    """Django's sign-up with a display name (kept in the account's first_name column, see
    the ``who`` filter) and an email address for a password reset."""

    email = forms.EmailField(required=False, help_text=EMAIL_HELP)

    class Meta(UserCreationForm.Meta):
        fields = ("username", "first_name", "email")
        labels = {"first_name": "Display name"}
        help_texts = {"first_name": DISPLAY_NAME_HELP}


class AccountForm(forms.ModelForm):
    """What an account holder changes themselves: the display name and the email address."""

    class Meta:
        model = get_user_model()
        fields = ("first_name", "email")
        labels = {"first_name": "Display name"}
        help_texts = {"first_name": DISPLAY_NAME_HELP, "email": EMAIL_HELP}


@login_required
def account(request):
    """The signed-in person's display name and email. Saving the account moves every stored
    page (``readcache.bump_names``), which shows names beside usernames."""
    form = AccountForm(request.POST or None, instance=request.user)
    if request.method == "POST" and form.is_valid():
        form.save()
        messages.success(request, "Account saved.")
        return redirect("account")
    context = {
        "form": form,
        "title": "Your account",
        "submit": "Save",
        "intro": f"Signed in as {request.user.get_username()}.",
        "after": format_html(
            'To change your password, <a href="{}">reset it by email</a>.',
            reverse("password-reset"),
        ),
    }
    return render(request, "arena/form.html", context)


def signup(request):
    form = SignUpForm(request.POST or None)
    context = {
        "title": "Sign up",
        "intro": SIGN_UP_INTRO,
        "after": format_html('Already have an account? <a href="{}">Log in</a>.', reverse("login")),
    }
    if refused := throttled_form(request, form, context, throttling.SignUpThrottle):
        return refused
    if request.method == "POST" and form.is_valid():
        user = form.save()
        # The account was just made: no password to check (the lock backend checks none).
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        # Back where the log-in was asked for (a page that needs an account), else home.
        response = redirect(_safe_next(request) or "home")
        throttling.remember_login(request, response, user.get_username())
        return response
    return render(request, "arena/form.html", {"form": form, **context})


def _safe_next(request) -> str:
    """The ``next`` page of the request when it is one of this site's, else ""."""
    target = request.POST.get("next") or request.GET.get("next") or ""
    allowed = url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    return target if allowed else ""


def _signup_url(request) -> str:
    """The sign-up page, carrying the log-in's ``next`` along."""
    target = _safe_next(request)
    return reverse("signup") + (f"?{urlencode({'next': target})}" if target else "")


class LoginView(auth_views.LoginView):
    """Django's log-in page; refused guesses (see ThrottledLoginForm) answer 429."""

    template_name = "arena/form.html"
    authentication_form = ThrottledLoginForm

    def get_context_data(self, **kwargs):
        return {
            **super().get_context_data(**kwargs),
            "title": "Log in",
            "intro": "Log in to upload bots, enter tournaments and organise them; "
            "everything else here is open to all.",
            "after": format_html(
                'New here? <a href="{}">Sign up</a>: it takes a minute. '
                '<a href="{}" id="forgot">Forgot your password?</a>',
                _signup_url(self.request),
                reverse("password-reset"),
            ),
        }

    def form_valid(self, form):
        response = super().form_valid(form)
        throttling.remember_login(self.request, response, form.get_user().get_username())
        return response

    def form_invalid(self, form):
        response = super().form_invalid(form)
        if form.has_error(NON_FIELD_ERRORS, "throttled"):
            response.status_code = TOO_MANY_REQUESTS
        return response


class PasswordResetView(auth_views.PasswordResetView):
    """Django's reset request: an email with a one-time link to every active account with
    that address (none said either way, so the page tells nobody who has an account).
    Requests are limited per address (``ARENA_PASSWORD_RESET_RATE``)."""

    template_name = "arena/form.html"
    email_template_name = "arena/password_reset_email.txt"
    subject_template_name = "arena/password_reset_subject.txt"
    success_url = reverse_lazy("password-reset-done")
    extra_context = {
        "title": "Reset your password",
        "submit": "Send me a link",
        "intro": "Give the email address of your account: we send it a link to choose a new "
        "password. An account made without an address cannot be reset this way: ask the "
        "site's staff.",
    }

    def post(self, request, *args, **kwargs):
        form = self.get_form()
        context = {"view": self, **self.extra_context}
        if refused := throttled_form(request, form, context, throttling.PasswordResetThrottle):
            return refused
        return super().post(request, *args, **kwargs)


def password_reset_done(request):
    return render(
        request,
        "arena/account_message.html",
        {
            "title": "Check your email",
            "message": "If an account has that address, a link to choose a new password is on "
            "its way. It works once, for a few days.",
        },
    )


class PasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    template_name = "arena/password_reset_confirm.html"
    success_url = reverse_lazy("password-reset-complete")
    post_reset_login = False


def password_reset_complete(request):
    return render(
        request,
        "arena/account_message.html",
        {
            "title": "Password changed",
            "message": "Your new password is set.",
            "link": reverse("login"),
            "link_text": "Log in",
        },
    )
