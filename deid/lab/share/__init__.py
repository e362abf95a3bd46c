"""Shareable training representations (Friedrich et al. 2019), the lab side.

A central provider trains a *representation model* (a BiLSTM over a frozen embedding table, with
trainable Gaussian noise on its input and output) against two adversaries so that a PHI token
cannot be told from its embedding neighbours; each hospital runs the frozen model over its own
annotated notes (``deid share-repr``) and sends vectors and labels, never text; a de-identification
head is then trained from the pooled files alone (``deid train --from-repr``).

Training code only: the runtime path (``deid.pipeline``, ``worker``) never imports this package.
Modules: ``units`` (the frozen units and their segments), ``neighbours`` (N nearest rows by cosine),
``model`` (the networks), ``pairs`` (real and fake pairs for the adversaries), ``train`` (the
three-phase procedure), ``reprfile`` (the shared file), ``store`` (the frozen model on disk),
``head`` (the head trained from files, and its evaluation), ``attack`` (the privacy test).
"""
