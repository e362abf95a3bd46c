"""Training the shipped models: the token classifier (``ner``), the concept head (``concepts``)
and the export of a checkpoint into the compact form the product loads (``export``). Loaded only
by ``deid train`` and the concept head's own command; importing this package loads nothing."""
