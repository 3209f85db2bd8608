"""Words as the product reads them: what a command asks for (``asks``) and whether it says
to confirm dialogs (``confirms``), and text as the checks compare it, case, accents and
punctuation aside (``text_match``)."""
