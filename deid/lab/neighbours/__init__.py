"""The lab side of the embedding-neighbour table: building it (``build``) and pseudonymising
annotated documents with it for sharing as training data (``export``). The runtime side, which
reads the table and replaces words, is ``deid.neighbours``."""
