"""Synthetic French clinical notes with exact gold spans (invented identities only)."""

from deid.lab.synth.generator import Patient, generate_notes, generate_patient_series, new_patient

__all__ = ["Patient", "generate_notes", "generate_patient_series", "new_patient"]
