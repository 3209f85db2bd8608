"""Words as the product reads them: what a command asks for (``asks``), the values it gives
and the terms it searches for (``values``), whether it says to confirm dialogs
(``confirms``), and text as the checks compare it, case, accents and punctuation aside
(``text_match``)."""
