"""Request bodies mean the same in every encoding the API accepts (JSON, form, multipart).

Two rules DRF does not have on its own:

- A boolean left out of a form or multipart body takes the default it takes when left out
  of JSON. DRF reads such a body as an HTML form, where an unticked box is simply not sent,
  so it took a missing boolean for false: ``curl -d name=mybot -d game=pairs`` made a bot
  that accepted no entries. To send false in a form, send ``accepts_entries=false``.
  :func:`read_left_out_booleans_as_json_does` sets this for every serializer at start-up.
- A form body that holds a JSON document (``curl -d '{...}'``, which sends
  ``application/x-www-form-urlencoded`` unless told otherwise) is refused with a 415 saying
  which header to send, instead of being read as one field named after the whole document.
"""

from __future__ import annotations

from rest_framework import parsers, serializers
from rest_framework.exceptions import UnsupportedMediaType
from rest_framework.fields import empty

JSON_STARTS = ("{", "[")


def read_left_out_booleans_as_json_does() -> None:
    """Every BooleanField: a form body that leaves it out leaves it out (its default, or
    nothing for a partial update), as JSON does. A field that allows null keeps DRF's null."""
    serializers.BooleanField.default_empty_html = empty


class FormParser(parsers.FormParser):
    """DRF's, refusing a JSON document sent as a form."""

    def parse(self, stream, media_type=None, parser_context=None):
        data = super().parse(stream, media_type, parser_context)
        first = next(iter(data), "")
        if first.lstrip().startswith(JSON_STARTS):
            raise UnsupportedMediaType(
                media_type,
                detail=f"The body looks like JSON but was sent as {media_type} (curl -d "
                "sends that unless told otherwise): send it with the header "
                "Content-Type: application/json.",
            )
        return data
