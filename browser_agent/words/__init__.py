"""Words as the product reads them: what a command asks for (``asks``), and text as the
checks compare it, case, accents and punctuation aside (``text_match``)."""
