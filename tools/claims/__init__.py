"""Claims and documents, the engine below `check_propositions` and `retrieve`: a response split into claims and
each checked against evidence (`propositions`), and passages found in the request's documents (`retrieval`)."""
