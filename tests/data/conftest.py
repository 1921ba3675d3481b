"""tests/data: `sgq data` (sgq/datasets/), what real streams reveal, and the real-data examples."""
