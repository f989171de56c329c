from django.apps import AppConfig


class IntegrationsConfig(AppConfig):
    name = "arena.integrations"
    label = "integrations"
    verbose_name = "Integrations"

    def ready(self) -> None:
        from arena.integrations import services
        from bots import hooks

        # The services below the top layer cannot import this app: they emit, it listens.
        hooks.on_event(services.dispatch_event)
