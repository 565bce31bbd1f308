"""The knowledge editor over claims and contexts, a thin layer above both (DESIGN §2): the
Knowledge page, the REST API for claims, entities, tags and contexts, the claim admin and
import / export of a whole account. It owns no models."""
