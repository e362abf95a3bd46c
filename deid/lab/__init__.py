"""The lab: code that builds, measures and shares models, which a hospital does not deploy.

Nothing of the runtime (detection, substitution, the pipeline, the worker's streaming path)
imports this package; only the batch commands of ``deid.cli`` do (``deid eval``, ``deid train``,
``deid audit``, ``deid repr-lab``, ``deid share-repr``, ``deid export-training``), so an image
that only de-identifies never loads it. ``tests/core/test_layers.py`` holds that line.

- ``eval``: scores a detector against gold annotations (strict and relaxed spans, tokens, the
  official scorers, the annotation-scheme projections), the frozen held-out lists
  (``eval/heldout``), the English dev notes (``eval/data``) and the privacy audit of a profile.
- ``corpora``: readers of the annotated corpora (BRAT, eds-pseudo, ECHR TSV, the realistic notes
  of ``corpora/realistic``, CoNLL concept corpora) onto the project's labels.
- ``synth``: synthetic French and English notes with exact gold spans (invented identities).
- ``training``: fine-tuning the token classifier (``training.ner``), training the concept head
  (``training.concepts``, ``python -m deid.lab.training.concepts``) and exporting a checkpoint into
  the shipped compact form (``training.export``).
- ``neighbours``: building the embedding-neighbour table under ``deid/data/neighbours``
  (``python -m deid.lab.neighbours.build``) and pseudonymising annotated documents for sharing as
  training data (``neighbours.export``); the table's runtime half is ``deid.neighbours``.
- ``share``: shareable training representations (Friedrich et al. 2019), the provider's side.
"""
