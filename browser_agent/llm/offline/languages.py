"""The words a site's controls go by in other languages than English: a page whose ``lang``
says German, French or Spanish names its "New", "Edit", "Save" or "Log in" in that
language, so the planner looks for those words too, after the English ones. Data only:
one table from the English word to its words in each language, nothing per site."""

from __future__ import annotations

from collections.abc import Iterable

#: For an English word or phrase the planner looks for, the words the same control goes by
#: in German, French and Spanish (the forms a site writes on a button or link: an
#: infinitive, an imperative, an adjective's genders).
WORDS: dict[str, dict[str, tuple[str, ...]]] = {
    # the verbs' controls
    "new": {
        "de": ("neu", "neue", "neuer", "neues", "neuen"),
        "fr": ("nouveau", "nouvelle", "nouvel"),
        "es": ("nuevo", "nueva"),
    },
    "create": {
        "de": ("erstellen", "erstelle", "anlegen", "erzeugen"),
        "fr": ("créer", "crée", "créez"),
        "es": ("crear", "crea", "cree"),
    },
    "add": {
        "de": ("hinzufügen",),
        "fr": ("ajouter", "ajoutez"),
        "es": ("añadir", "agregar", "añade"),
    },
    "edit": {
        "de": ("bearbeiten", "bearbeite"),
        "fr": ("modifier", "éditer", "modifiez"),
        "es": ("editar", "modificar", "edita"),
    },
    "change": {"de": ("ändern",), "fr": ("changer",), "es": ("cambiar",)},
    "modify": {"de": ("ändern",), "fr": ("modifier",), "es": ("modificar",)},
    "update": {"de": ("aktualisieren",), "fr": ("actualiser",), "es": ("actualizar",)},
    "delete": {
        "de": ("löschen", "lösche", "entfernen"),
        "fr": ("supprimer", "supprimez", "effacer"),
        "es": ("eliminar", "borrar", "suprimir"),
    },
    "remove": {
        "de": ("entfernen", "löschen"),
        "fr": ("retirer", "supprimer"),
        "es": ("quitar", "eliminar"),
    },
    "trash": {"de": ("papierkorb",), "fr": ("corbeille",), "es": ("papelera",)},
    "archive": {"de": ("archivieren",), "fr": ("archiver",), "es": ("archivar",)},
    # a form's own button
    "save": {
        "de": ("speichern", "sichern"),
        "fr": ("enregistrer", "sauvegarder"),
        "es": ("guardar",),
    },
    "publish": {
        "de": ("veröffentlichen",),
        "fr": ("publier",),
        "es": ("publicar",),
    },
    "submit": {
        "de": ("absenden", "senden", "abschicken"),
        "fr": ("envoyer", "soumettre", "valider"),
        "es": ("enviar",),
    },
    "send": {"de": ("senden", "absenden"), "fr": ("envoyer",), "es": ("enviar",)},
    "post": {"de": ("absenden",), "fr": ("publier",), "es": ("publicar",)},
    "apply": {"de": ("übernehmen", "anwenden"), "fr": ("appliquer",), "es": ("aplicar",)},
    "done": {"de": ("fertig",), "fr": ("terminé",), "es": ("listo",)},
    # a confirmation, and the buttons that refuse one
    "yes": {"de": ("ja",), "fr": ("oui",), "es": ("sí", "si")},
    "confirm": {"de": ("bestätigen",), "fr": ("confirmer",), "es": ("confirmar",)},
    "continue": {"de": ("fortfahren", "weiter"), "fr": ("continuer",), "es": ("continuar",)},
    "cancel": {"de": ("abbrechen",), "fr": ("annuler",), "es": ("cancelar",)},
    "no": {"de": ("nein",), "fr": ("non",), "es": ("no",)},
    "keep": {"de": ("behalten",), "fr": ("garder",), "es": ("mantener",)},
    "back": {"de": ("zurück",), "fr": ("retour",), "es": ("volver",)},
    "close": {"de": ("schließen",), "fr": ("fermer",), "es": ("cerrar",)},
    "are you sure": {
        "de": ("sind sie sicher", "wirklich", "bestätigen"),
        "fr": ("êtes-vous sûr", "voulez-vous vraiment", "confirmer"),
        "es": ("está seguro", "¿está seguro", "confirmar"),
    },
    # logging in, searching
    "log in": {
        "de": ("anmelden", "einloggen"),
        "fr": ("connexion", "se connecter"),
        "es": ("iniciar sesión", "acceder", "entrar"),
    },
    "sign in": {"de": ("anmelden",), "fr": ("se connecter",), "es": ("iniciar sesión",)},
    "username": {
        "de": ("benutzername", "benutzer"),
        "fr": ("nom d'utilisateur", "identifiant"),
        "es": ("nombre de usuario", "usuario"),
    },
    "password": {"de": ("passwort", "kennwort"), "fr": ("mot de passe",), "es": ("contraseña",)},
    "email": {"de": ("e-mail",), "fr": ("courriel",), "es": ("correo",)},
    "search": {"de": ("suchen", "suche"), "fr": ("rechercher",), "es": ("buscar",)},
    # a form's fields
    "title": {"de": ("titel",), "fr": ("titre",), "es": ("título",)},
    "subject": {"de": ("betreff",), "fr": ("sujet", "objet"), "es": ("asunto",)},
    "name": {"de": ("name",), "fr": ("nom",), "es": ("nombre",)},
    "summary": {"de": ("zusammenfassung",), "fr": ("résumé",), "es": ("resumen",)},
    "text": {"de": ("text", "inhalt"), "fr": ("texte", "contenu"), "es": ("texto", "contenido")},
    "description": {"de": ("beschreibung",), "fr": ("description",), "es": ("descripción",)},
    "comment": {"de": ("kommentar",), "fr": ("commentaire",), "es": ("comentario",)},
    "message": {"de": ("nachricht",), "fr": ("message",), "es": ("mensaje",)},
    "priority": {"de": ("priorität",), "fr": ("priorité",), "es": ("prioridad",)},
    "assignee": {
        "de": ("zugewiesen an", "bearbeiter"),
        "fr": ("assigné à",),
        "es": ("asignado a",),
    },
    "owner": {"de": ("besitzer", "verantwortlich"), "fr": ("propriétaire",), "es": ("dueño",)},
    "assign to": {"de": ("zuweisen an",), "fr": ("assigner à",), "es": ("asignar a",)},
    "reassign to": {
        "de": ("neu zuweisen an", "zuweisen an"),
        "fr": ("réassigner à",),
        "es": ("reasignar a",),
    },
    "admin": {
        "de": ("verwaltung", "administration"),
        "fr": ("administration",),
        "es": ("administración",),
    },
    # a page's views
    "history": {
        "de": ("versionsgeschichte", "verlauf", "versionen"),
        "fr": ("historique",),
        "es": ("historial",),
    },
    "settings": {"de": ("einstellungen",), "fr": ("paramètres",), "es": ("configuración",)},
    # words a control's name holds beside its verb ("Seite bearbeiten", "Nouvelle page")
    "page": {"de": ("seite",), "fr": ("page",), "es": ("página",)},
    "this": {"de": ("diese", "dieses", "diesen"), "fr": ("cette", "ce"), "es": ("esta", "este")},
    "the": {
        "de": ("der", "die", "das", "den"),
        "fr": ("le", "la", "les", "l"),
        "es": ("el", "la", "los", "las"),
    },
    "a": {"de": ("ein", "eine", "einen"), "fr": ("un", "une"), "es": ("un", "una")},
    "changes": {"de": ("änderungen",), "fr": ("modifications",), "es": ("cambios",)},
    "now": {"de": ("jetzt",), "fr": ("maintenant",), "es": ("ahora",)},
    "my": {"de": ("mein", "meine"), "fr": ("mon", "ma", "mes"), "es": ("mi", "mis")},
    # a menu's toggle
    "more": {"de": ("mehr",), "fr": ("plus",), "es": ("más",)},
    "menu": {"de": ("menü",), "fr": ("menu",), "es": ("menú",)},
    "actions": {"de": ("aktionen",), "fr": ("actions",), "es": ("acciones",)},
    "tools": {"de": ("werkzeuge",), "fr": ("outils",), "es": ("herramientas",)},
    "personal": {"de": ("persönliche",), "fr": ("personnels",), "es": ("personales",)},
    "user": {"de": ("benutzer",), "fr": ("utilisateur",), "es": ("usuario",)},
    "account": {"de": ("konto", "benutzerkonto"), "fr": ("compte",), "es": ("cuenta",)},
}

#: The languages the table has words for.
LANGUAGES = frozenset(lang for said in WORDS.values() for lang in said)


def language(tag: str) -> str:
    """The language a ``lang`` tag names, when the table has its words ("de-AT" -> "de");
    "" for English, no tag, or a language the table does not hold."""
    primary = tag.strip().lower().split("-", 1)[0]
    return primary if primary in LANGUAGES else ""


def also(phrases: Iterable[str], tag: str) -> tuple[str, ...]:
    """The phrases, then the words of the page's language for each (English alone when the
    page is English or its language is not in the table), each once, in order."""
    phrases = tuple(phrases)
    lang = language(tag)
    if not lang:
        return phrases
    more = [w for p in phrases for w in WORDS.get(p.strip().lower(), {}).get(lang, ())]
    return tuple(dict.fromkeys((*phrases, *more)))


def every_language(phrases: Iterable[str]) -> tuple[str, ...]:
    """The phrases and their words in every language of the table (for what is read with no
    page at hand: the name of a menu's toggle)."""
    phrases = tuple(phrases)
    more = [w for p in phrases for said in WORDS.get(p.lower(), {}).values() for w in said]
    return tuple(dict.fromkeys((*phrases, *more)))


def relabelled(text: str, tag: str) -> tuple[str, ...]:
    """A "label value" text with its English label put in the page's language: "password
    {PASSWORD}" on a German page is also "passwort {PASSWORD}"; none when nothing is."""
    lang = language(tag)
    if not lang:
        return ()
    lowered = text.lower()
    found = []
    for label in sorted(WORDS, key=len, reverse=True):
        if lowered.startswith(f"{label} ") and lang in WORDS[label]:
            rest = text[len(label) :]
            found += [f"{word}{rest}" for word in WORDS[label][lang]]
    return tuple(found)
