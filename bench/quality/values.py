"""Value pools the templates draw from, each value used at most once in the corpus so that
an answer names one fact only. Values are distinctive words on purpose: an answer that is
also an everyday word ("heat", "go") would match unrelated turns."""

from __future__ import annotations

import random

POOLS: dict[str, list[str]] = {
    "name": [
        "Aisha", "Dmitri", "Ingrid", "Tomasz", "Priya", "Mateo", "Yuki", "Oluwaseun", "Freya",
        "Rafael", "Siobhan", "Kwame", "Annika", "Bastien", "Leilani", "Emeka", "Greta",
        "Haruto", "Marisol", "Caspian", "Nadia", "Idris", "Solveig", "Teodor", "Zainab",
        "Lorcan", "Agnieszka", "Thandiwe", "Benedikt", "Rosalind", "Kenji", "Paloma", "Ewan",
        "Farida", "Joaquin", "Maren", "Cosimo", "Imogen", "Anselm", "Dagny", "Ravi", "Celeste",
        "Gustav", "Noor", "Florian", "Ottilie", "Santiago", "Wilhelmina", "Kofi", "Ludmila",
        "Cormac", "Esperanza", "Hamish", "Ingeborg", "Lucian", "Mirela", "Perpetua", "Radek",
        "Svetlana", "Tiberius", "Ulrike", "Valentin", "Winifred", "Xavi", "Yusuf", "Zofia",
        "Ambrose", "Birgit", "Cyrus", "Delphine", "Evander", "Fenella", "Gideon", "Hortense",
        "Isidore", "Jolanta", "Kasimir", "Lavinia", "Magnus", "Niamh", "Octavia", "Pascal",
        "Quentin", "Rosamund", "Severin", "Tamsin", "Ulysses", "Violetta", "Wendell", "Ximena",
        "Aurelio", "Beatrix", "Clemens", "Dorothea", "Eliska", "Fitzgerald", "Gwendolyn",
        "Horatio", "Ilse", "Jarrah", "Kalinda", "Leopold", "Mirabel", "Nikolai", "Orla",
        "Philippa", "Ruairi", "Sunniva", "Thaddeus", "Ursula", "Vasco", "Wilfred", "Yolanda",
        "Zebedee", "Anouk", "Bartholomew", "Cressida", "Desmond", "Elodie", "Fyodor",
    ],
    "pet_name": [
        "Biscuit", "Pickle", "Mochi", "Juniper", "Waffles", "Pretzel", "Noodle", "Clementine",
    ],
    "dog_breed": ["beagle", "whippet", "dachshund", "border collie", "Shiba Inu", "vizsla"],
    "place": [
        "Porto", "Tallinn", "Kyoto", "Reykjavik", "Marrakesh", "Tbilisi", "Oaxaca", "Ljubljana",
        "Hobart", "Montevideo", "Gdańsk", "Trieste", "Bergen", "Valparaíso", "Hanoi", "Tromsø",
        "Zanzibar", "Cusco", "Dubrovnik", "Sapporo", "Cartagena", "Plovdiv", "Luang Prabang",
        "Quebec City", "Galway", "Salzburg", "Essaouira", "Yogyakarta", "Matera", "Halifax",
        "Bruges", "Chiang Mai", "Inverness", "Nafplio", "Arequipa", "Lofoten", "Mostar",
        "Wellington", "Izmir", "Tenerife", "Kotor", "Bologna", "Ghent", "Aarhus", "Riga",
        "Vilnius", "Seville", "Granada", "Antwerp", "Lyon", "Krakow", "Cádiz", "Palermo",
        "Innsbruck", "Heidelberg", "Freiburg", "Uppsala", "Turku", "Tartu", "Brno",
    ],
    "company": [
        "Northwind Analytics", "Brightlane Logistics", "Halcyon Robotics", "Meridian Health",
        "Quillfeather Press", "Tidewater Energy", "Copperleaf Games",
    ],
    "job": [
        "paediatric nurse", "structural engineer", "sommelier", "tattoo artist",
        "air traffic controller", "court stenographer", "luthier", "cartographer",
        "dental hygienist", "patent attorney", "set designer", "glassblower", "park ranger",
        "sign language interpreter", "midwife", "actuary", "forensic accountant", "farrier",
        "lighthouse keeper", "marine biologist", "stonemason", "radio producer",
        "occupational therapist", "perfumer", "locksmith", "archivist", "zookeeper",
        "anaesthetist", "piano tuner", "ferry captain", "seismologist", "chocolatier",
    ],
    "allergen": [
        "shellfish", "sesame", "penicillin", "latex", "kiwi fruit", "bee stings", "walnuts",
        "mustard seed", "celery", "birch pollen", "lupin", "buckwheat", "horse hair",
        "sulphites",
    ],
    "car": [
        "Skoda Octavia", "Mazda MX-5", "Volvo V60", "Fiat Panda", "Kia Niro", "Renault Zoe",
        "Land Rover Defender", "Subaru Outback", "Toyota Yaris", "Citroën Berlingo",
        "Hyundai Ioniq", "Alfa Romeo Giulia", "Dacia Duster",
    ],
    "instrument": [
        "cello", "banjo", "ukulele", "oboe", "harp", "accordion", "trombone", "mandolin",
        "bassoon", "theremin", "clarinet", "double bass", "harmonica", "saxophone",
    ],
    "language": [
        "Portuguese", "Korean", "Welsh", "Finnish", "Icelandic", "Swahili", "Greek", "Turkish",
        "Hungarian", "Polish", "Japanese", "Dutch", "Tagalog",
    ],
    "hobby": [
        "fencing", "woodturning", "calligraphy", "salsa dancing", "origami", "orienteering",
        "archery", "sea kayaking", "bonsai", "embroidery", "geocaching", "roller derby",
        "paddleboarding", "lino printing", "falconry", "cave diving",
    ],
    "dish": [
        "ramen", "pierogi", "shakshuka", "bibimbap", "moussaka", "paella", "pho", "tagine",
        "risotto", "goulash", "laksa", "empanadas", "jollof rice", "pad see ew", "dal makhani",
        "khachapuri", "ceviche", "tonkatsu", "arancini", "gnocchi",
    ],
    "team": [
        "Celtic", "Boca Juniors", "Ajax", "Napoli", "Bayern Munich", "Leeds United", "Benfica",
        "Sevilla FC", "Galatasaray", "Feyenoord",
    ],
    "drink": [
        "cortado", "rooibos", "yerba mate", "kombucha", "flat white", "chai latte", "Negroni",
        "Aperol spritz", "ginger beer", "oolong",
    ],
    "pet_kind": [
        "tortoise", "ferret", "parrot", "axolotl", "bearded dragon", "hedgehog", "chinchilla",
        "corn snake", "budgie", "guinea pig", "lop-eared rabbit", "koi carp",
    ],
    "book": [
        "The Left Hand of Darkness", "Piranesi", "Middlemarch", "The Remains of the Day",
        "Station Eleven", "Stoner", "The Dispossessed", "Pachinko", "Klara and the Sun",
        "The Overstory", "Wolf Hall", "The Name of the Rose",
    ],
    "film": ["Paddington 2", "Spirited Away", "Amélie", "The Princess Bride", "Ratatouille",
             "Casablanca", "Moonstruck", "Parasite"],
    "band": [
        "Khruangbin", "Wet Leg", "Fontaines D.C.", "Sigur Rós", "Little Simz", "Phoebe Bridgers",
        "Bonobo", "Massive Attack", "Caribou", "Sampha", "Big Thief",
        "Mitski", "Bon Iver", "Portishead", "Röyksopp", "Arooj Aftab",
    ],
    "surname": [
        "Okafor", "Lindqvist", "Haddad", "Moreau", "Petrakis", "Nakamura", "Achterberg",
        "Szabo", "Castellanos", "Fairbairn", "Oyelaran", "Brannigan",
    ],
    "restaurant": [
        "Casa Lupita", "The Copper Kettle", "Mei's Noodle Bar", "Osteria Fiorella",
        "The Lantern Room", "Bistro Margaux", "Saffron & Smoke", "The Gilded Pig",
        "Kumo Izakaya", "El Faro",
    ],
    "codename": ["Heron", "Bluebell", "Kestrel", "Lodestar", "Marigold", "Sandpiper",
                 "Foxglove", "Tamarind"],
    "tech": ["Kotlin", "Haskell", "Svelte", "Scala", "Clojure", "OCaml", "Zig", "Erlang",
             "Julia", "Dart"],
    "lent_object": ["cordless drill", "two-person tent", "camping stove", "extension ladder",
                    "film projector", "bike rack", "sewing machine", "pressure washer",
                    "paddleboard pump", "stand mixer"],
    "street": ["Cranbrook Road", "Albion Street", "Mill Lane", "Juniper Crescent",
               "Foundry Walk", "Tannery Row"],
    "race": ["Great North Run", "Bath Half", "Hackney Half", "Royal Parks Half",
             "Rotterdam marathon", "Valencia 10k", "Brighton marathon", "Ealing Half",
             "Snowdonia trail marathon", "Loch Ness marathon"],
}


class Pools:
    """Draws values without replacement, in a seeded random order."""

    def __init__(self, rng: random.Random) -> None:
        self._left = {kind: rng.sample(values, len(values)) for kind, values in POOLS.items()}

    def take(self, kind: str) -> str:
        if not self._left[kind]:
            raise ValueError(f"value pool {kind!r} is used up: add values to values.POOLS")
        return self._left[kind].pop()
