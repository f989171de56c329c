"""What Arena tells people and scripts: scoped API tokens, the inbox and email, webhooks.

Events come from the services below (bots, tournaments) through ``bots.hooks.emit``; this
app, at the top of the layers, listens (``apps.IntegrationsConfig.ready``) and turns each
into inbox rows, emails and signed webhook deliveries, as each recipient chose."""
