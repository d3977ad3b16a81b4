"""Countries of the synthetic federation: their players' names, cities, clubs and event names.

Every country carries the naming habits a rating officer meets in real result files: accented
letters, feminine surname forms (Polish, Czech), double surnames (Spanish, Portuguese), particles
(``de Jong``, ``van der Meer``). Within one country no two first names and no two surnames fold to
the same text once case and accents are dropped, so ``first × surname`` combinations stay distinct
under the importer's accent-insensitive name matching.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Country:
    """One member federation of the synthetic world."""

    code: str
    """Three-letter code used in the ``country`` column."""
    weight: float
    """Share of the world's players."""
    group: str
    """Neighbouring countries whose players meet at regional international opens."""
    male: tuple[str, ...]
    female: tuple[str, ...]
    surnames: tuple[str, ...]
    female_surnames: tuple[str, ...] | None
    """Feminine forms, position by position, where the language has them."""
    double_surname: bool
    """Players carry two surnames (Iberian custom)."""
    cities: tuple[str, ...]
    clubs: tuple[str, ...]
    """Club name patterns, ``{city}`` filled in."""
    events: tuple[str, ...]
    """Regular event name patterns, with ``{city}`` and ``{year}``."""
    championships: tuple[str, ...]
    """National championships held each year, in order of importance; ``{year}`` is appended."""


def _pl_feminine(surname: str) -> str:
    # Adjectival surnames (-ski, -cki, -dzki) take a feminine ending; nouns such as Nowak do not.
    return surname[:-1] + "a" if surname.endswith(("ski", "cki")) else surname


# fmt: off
_PL_SURNAMES = (
    "Nowak", "Kowalski", "Wiśniewski", "Wójcik", "Kowalczyk", "Kamiński", "Lewandowski",
    "Zieliński", "Szymański", "Woźniak", "Dąbrowski", "Kozłowski", "Jankowski", "Mazur",
    "Kwiatkowski", "Krawczyk", "Piotrowski", "Grabowski", "Nowakowski", "Pawłowski", "Michalski",
    "Król", "Wieczorek", "Jabłoński", "Wróbel", "Górski", "Sikora", "Błaszczyk", "Żak", "Łuczak",
)
# fmt: on

# fmt: off
COUNTRIES: tuple[Country, ...] = (
    Country(
        code="DEU",
        weight=0.24,
        group="DACH",
        male=(
            "Thomas", "Michael", "Andreas", "Stefan", "Markus", "Jürgen", "Jörg", "Uwe", "Klaus",
            "Günter", "Matthias", "Tobias", "Florian", "Lukas", "Jonas", "Maximilian", "Sebastian",
            "Björn", "Dieter", "Wolfgang", "Frank", "Holger", "Sören", "Niklas",
        ),
        female=("Sabine", "Petra", "Jutta", "Anja", "Katrin", "Ursula", "Birgit", "Lea", "Käthe"),
        surnames=(
            "Müller", "Schmidt", "Schneider", "Fischer", "Weber", "Meyer", "Wagner", "Becker",
            "Schulz", "Hoffmann", "Schäfer", "Koch", "Bauer", "Richter", "Klein", "Wolf",
            "Schröder", "Neumann", "Schwarz", "Zimmermann", "Braun", "Krüger", "Hofmann",
            "Hartmann", "Lange", "Schmitt", "Werner", "Krause", "Meier", "Lehmann", "Köhler",
            "Böhm", "Groß", "Jäger", "Vogel", "Fuchs",
        ),
        female_surnames=None,
        double_surname=False,
        cities=(
            "Berlin", "Hamburg", "München", "Köln", "Frankfurt", "Stuttgart", "Düsseldorf",
            "Leipzig", "Dresden", "Nürnberg", "Hannover", "Bremen", "Freiburg", "Würzburg",
        ),
        clubs=("Mühlefreunde {city}", "SV Mühle {city}", "MC {city}"),
        events=(
            "Mühleturnier {city} {year}", "Mühle-Open {city} {year}",
            "Schnellturnier {city} {year}", "Vereinsturnier {city} {year}",
        ),
        championships=(
            "Deutsche Mühle-Meisterschaft", "Deutsche Pokalmeisterschaft",
            "Deutsche Schnellmühle-Meisterschaft",
        ),
    ),
    Country(
        code="CHE",
        weight=0.12,
        group="DACH",
        male=(
            "Hansruedi", "Urs", "Beat", "Reto", "Daniel", "Peter", "Marco", "Patrick", "Thomas",
            "Christoph", "Lukas", "Fabian", "Jürg", "Rolf", "Stéphane", "Jean-Luc", "Luca",
            "Matthias", "Adrian", "Rémy",
        ),
        female=("Ursula", "Verena", "Monika", "Barbara", "Céline", "Nadine", "Sandra", "Chiara"),
        surnames=(
            "Müller", "Meier", "Schmid", "Keller", "Weber", "Huber", "Schneider", "Meyer",
            "Steiner", "Fischer", "Gerber", "Brunner", "Baumann", "Frei", "Zimmermann", "Moser",
            "Widmer", "Wyss", "Graf", "Roth", "Favre", "Rochat", "Bernasconi", "Zürcher", "Bühler",
            "Lüthi", "Käser", "Hämmerli", "Studer", "Aebischer", "Rüegg",
        ),
        female_surnames=None,
        double_surname=False,
        cities=(
            "Zürich", "Bern", "Basel", "Luzern", "St. Gallen", "Winterthur", "Biel", "Thun",
            "Aarau", "Chur", "Fribourg", "Lausanne", "Lugano", "Schaffhausen",
        ),
        clubs=("Mühleclub {city}", "MC {city}"),
        events=(
            "Mühleturnier {city} {year}", "Open {city} {year}", "Plauschturnier {city} {year}",
        ),
        championships=(
            "Schweizer Mühlemeisterschaft", "Schweizer Cup", "Schweizer Blitzmeisterschaft",
        ),
    ),
    Country(
        code="AUT",
        weight=0.10,
        group="DACH",
        male=(
            "Johann", "Franz", "Josef", "Karl", "Herbert", "Gerhard", "Manfred", "Alois",
            "Wolfgang", "Christian", "Lukas", "David", "Florian", "Dominik", "Martin", "Andreas",
            "Bernhard", "Günther", "Reinhard", "Helmut",
        ),
        female=("Maria", "Elisabeth", "Theresia", "Christine", "Julia", "Katharina", "Anna"),
        surnames=(
            "Gruber", "Huber", "Bauer", "Wagner", "Müller", "Pichler", "Steiner", "Moser", "Mayer",
            "Hofer", "Leitner", "Berger", "Fuchs", "Eder", "Fischer", "Schmid", "Winkler", "Weber",
            "Schwarz", "Maier", "Schneider", "Reiter", "Wimmer", "Egger", "Brunner", "Lang",
            "Baumgartner", "Auer", "Aigner", "Pölzl", "Kröll", "Höller",
        ),
        female_surnames=None,
        double_surname=False,
        cities=(
            "Wien", "Graz", "Linz", "Salzburg", "Innsbruck", "Klagenfurt", "Villach", "Wels",
            "St. Pölten", "Dornbirn", "Bregenz", "Leoben",
        ),
        clubs=("Mühleverein {city}", "Union Mühle {city}"),
        events=("Mühleturnier {city} {year}", "Stadtturnier {city} {year}", "Open {city} {year}"),
        championships=("Österreichische Staatsmeisterschaft", "Österreichischer Mühlecup"),
    ),
    Country(
        code="POL",
        weight=0.08,
        group="EAST",
        male=(
            "Piotr", "Krzysztof", "Andrzej", "Tomasz", "Paweł", "Michał", "Marcin", "Łukasz",
            "Jakub", "Grzegorz", "Mateusz", "Adam", "Wojciech", "Rafał", "Maciej", "Kamil",
            "Bartłomiej", "Dariusz", "Zbigniew", "Sławomir",
        ),
        female=("Anna", "Katarzyna", "Małgorzata", "Agnieszka", "Joanna", "Ewa", "Zofia"),
        surnames=_PL_SURNAMES,
        female_surnames=tuple(_pl_feminine(s) for s in _PL_SURNAMES),
        double_surname=False,
        cities=(
            "Warszawa", "Kraków", "Łódź", "Wrocław", "Poznań", "Gdańsk", "Szczecin", "Lublin",
            "Katowice", "Białystok", "Toruń", "Rzeszów",
        ),
        clubs=("KS Młynek {city}", "Klub Młynka {city}"),
        events=("Turniej Młynka {city} {year}", "Otwarty Turniej {city} {year}"),
        championships=("Mistrzostwa Polski", "Puchar Polski"),
    ),
    Country(
        code="CZE",
        weight=0.05,
        group="EAST",
        male=(
            "Jan", "Jiří", "Petr", "Josef", "Pavel", "Martin", "Tomáš", "Jaroslav", "Miroslav",
            "Zdeněk", "Václav", "Michal", "Lukáš", "Ondřej", "Jakub", "Vojtěch", "Radek",
            "Stanislav",
        ),
        female=("Jana", "Marie", "Eva", "Hana", "Lenka", "Kateřina", "Věra", "Tereza"),
        surnames=(
            "Novák", "Svoboda", "Novotný", "Dvořák", "Černý", "Procházka", "Kučera", "Veselý",
            "Horák", "Němec", "Marek", "Pospíšil", "Pokorný", "Hájek", "Král", "Jelínek",
            "Růžička", "Beneš", "Fiala", "Sedláček", "Doležal", "Zeman", "Kolář", "Navrátil",
            "Čermák",
        ),
        female_surnames=(
            "Nováková", "Svobodová", "Novotná", "Dvořáková", "Černá", "Procházková", "Kučerová",
            "Veselá", "Horáková", "Němcová", "Marková", "Pospíšilová", "Pokorná", "Hájková",
            "Králová", "Jelínková", "Růžičková", "Benešová", "Fialová", "Sedláčková",
            "Doležalová", "Zemanová", "Kolářová", "Navrátilová", "Čermáková",
        ),
        double_surname=False,
        cities=(
            "Praha", "Brno", "Ostrava", "Plzeň", "Liberec", "Olomouc", "České Budějovice",
            "Hradec Králové", "Pardubice", "Zlín",
        ),
        clubs=("Klub mlýna {city}", "Mlýn {city}"),
        events=("Turnaj v mlýnu {city} {year}", "Velká cena {city} {year}"),
        championships=("Mistrovství České republiky", "Český pohár"),
    ),
    Country(
        code="HUN",
        weight=0.04,
        group="EAST",
        male=(
            "László", "István", "József", "János", "Zoltán", "Sándor", "Gábor", "Ferenc", "Attila",
            "Péter", "Tamás", "Zsolt", "Dániel", "Ádám", "Bence", "Csaba", "Gergő",
        ),
        female=("Mária", "Erzsébet", "Katalin", "Ilona", "Éva", "Zsófia", "Réka", "Anikó"),
        surnames=(
            "Nagy", "Kovács", "Tóth", "Szabó", "Horváth", "Varga", "Kiss", "Molnár", "Németh",
            "Farkas", "Balogh", "Papp", "Takács", "Juhász", "Lakatos", "Mészáros", "Oláh",
            "Simon", "Rácz", "Fekete", "Szilágyi", "Török", "Fehér", "Balázs", "Gál", "Szűcs",
            "Kocsis", "Pintér",
        ),
        female_surnames=None,
        double_surname=False,
        cities=(
            "Budapest", "Debrecen", "Szeged", "Miskolc", "Pécs", "Győr", "Nyíregyháza",
            "Kecskemét", "Székesfehérvár", "Szombathely",
        ),
        clubs=("{city} Malom SE", "{city} Malomklub"),
        events=("{city} Malomverseny {year}", "{city} Nyílt Verseny {year}"),
        championships=("Magyar Malombajnokság", "Magyar Kupa"),
    ),
    Country(
        code="ITA",
        weight=0.07,
        group="SOUTH",
        male=(
            "Marco", "Giuseppe", "Giovanni", "Antonio", "Francesco", "Luca", "Alessandro",
            "Andrea", "Matteo", "Lorenzo", "Davide", "Stefano", "Paolo", "Roberto", "Niccolò",
            "Fabrizio", "Simone", "Riccardo", "Federico", "Gianluca",
        ),
        female=("Giulia", "Francesca", "Chiara", "Sara", "Valentina", "Elena", "Martina"),
        surnames=(
            "Rossi", "Russo", "Ferrari", "Esposito", "Bianchi", "Romano", "Colombo", "Ricci",
            "Marino", "Greco", "Bruno", "Gallo", "Conti", "De Luca", "Mancini", "Costa",
            "Giordano", "Rizzo", "Lombardi", "Moretti", "Barbieri", "Fontana", "Santoro",
            "Mariani", "Rinaldi", "Caruso", "D'Angelo", "Fabbri", "Cattaneo", "Galli",
        ),
        female_surnames=None,
        double_surname=False,
        cities=(
            "Roma", "Milano", "Napoli", "Torino", "Palermo", "Genova", "Bologna", "Firenze",
            "Bari", "Verona", "Padova", "Trieste", "Bolzano",
        ),
        clubs=("Circolo del Filetto {city}", "ASD Mulino {city}"),
        events=("Torneo di {city} {year}", "Trofeo Città di {city} {year}", "Open {city} {year}"),
        championships=("Campionato Italiano", "Coppa Italia"),
    ),
    Country(
        code="ESP",
        weight=0.05,
        group="SOUTH",
        male=(
            "José", "Antonio", "Manuel", "Francisco", "Javier", "David", "Juan", "Carlos", "Jesús",
            "Alejandro", "Miguel", "Rafael", "Pablo", "Sergio", "Álvaro", "Adrián", "Raúl",
            "Iñigo", "Andrés",
        ),
        female=("María", "Carmen", "Lucía", "Laura", "Marta", "Nuria", "Begoña"),
        surnames=(
            "García", "Rodríguez", "González", "Fernández", "López", "Martínez", "Sánchez", "Pérez",
            "Gómez", "Martín", "Jiménez", "Ruiz", "Hernández", "Díaz", "Moreno", "Muñoz",
            "Álvarez", "Romero", "Alonso", "Gutiérrez", "Navarro", "Torres", "Domínguez",
            "Vázquez", "Ramos", "Gil", "Ramírez", "Serrano", "Blanco", "Molina", "Ibáñez", "Núñez",
        ),
        female_surnames=None,
        double_surname=True,
        cities=(
            "Madrid", "Barcelona", "Valencia", "Sevilla", "Zaragoza", "Málaga", "Bilbao",
            "Valladolid", "Córdoba", "Alicante", "Granada", "Oviedo",
        ),
        clubs=("Club Molino {city}", "Club de Juegos de {city}"),
        events=("Torneo de {city} {year}", "Open de {city} {year}", "Trofeo {city} {year}"),
        championships=("Campeonato de España", "Copa de España"),
    ),
    Country(
        code="FRA",
        weight=0.06,
        group="WEST",
        male=(
            "Jean", "Pierre", "Michel", "Philippe", "Alain", "Nicolas", "Christophe", "Laurent",
            "Stéphane", "Frédéric", "Julien", "Sébastien", "Olivier", "Thierry", "Jérôme",
            "François", "Benoît", "Hugo", "Théo", "Loïc",
        ),
        female=("Marie", "Nathalie", "Isabelle", "Sylvie", "Céline", "Amélie", "Hélène", "Chloé"),
        surnames=(
            "Martin", "Bernard", "Dubois", "Thomas", "Robert", "Richard", "Petit", "Durand",
            "Leroy", "Moreau", "Simon", "Laurent", "Lefèvre", "Michel", "Garcia", "David",
            "Bertrand", "Roux", "Vincent", "Fournier", "Morel", "Girard", "André", "Mercier",
            "Dupont", "Lambert", "Bonnet", "Rousseau", "Gauthier", "Chevalier",
        ),
        female_surnames=None,
        double_surname=False,
        cities=(
            "Paris", "Lyon", "Marseille", "Toulouse", "Nice", "Nantes", "Strasbourg",
            "Montpellier", "Bordeaux", "Lille", "Rennes", "Grenoble", "Besançon", "Mulhouse",
        ),
        clubs=("Cercle du Moulin de {city}", "Club de Marelle de {city}"),
        events=("Tournoi de {city} {year}", "Open de {city} {year}"),
        championships=("Championnat de France", "Coupe de France"),
    ),
    Country(
        code="NLD",
        weight=0.04,
        group="WEST",
        male=(
            "Jan", "Pieter", "Kees", "Hendrik", "Willem", "Johannes", "Dirk", "Gerrit", "Bram",
            "Daan", "Sander", "Ruud", "Joost", "Maarten", "Thijs", "Sjoerd", "Bas", "Niels",
        ),
        female=("Anna", "Sanne", "Femke", "Lotte", "Anouk", "Marieke", "Eva"),
        surnames=(
            "de Jong", "Jansen", "de Vries", "van den Berg", "van Dijk", "Bakker", "Visser",
            "Smit", "Meijer", "de Boer", "Mulder", "de Groot", "Bos", "Vos", "Peters", "Hendriks",
            "van Leeuwen", "Dekker", "Brouwer", "de Wit", "Dijkstra", "Smits", "de Graaf",
            "van der Meer", "van der Linden", "Kok", "Jacobs", "Vermeulen", "Willems",
        ),
        female_surnames=None,
        double_surname=False,
        cities=(
            "Amsterdam", "Rotterdam", "Den Haag", "Utrecht", "Eindhoven", "Groningen", "Tilburg",
            "Breda", "Nijmegen", "Arnhem", "Haarlem", "Leiden", "Maastricht",
        ),
        clubs=("Molenclub {city}", "MSV {city}"),
        events=("Molentoernooi {city} {year}", "Open {city} {year}"),
        championships=("Nederlands Kampioenschap", "Nederlandse Beker"),
    ),
    Country(
        code="BEL",
        weight=0.02,
        group="WEST",
        male=(
            "Luc", "Marc", "Peter", "Koen", "Dirk", "Pieter", "Wouter", "Jean", "Philippe",
            "Olivier", "Mathieu", "Thibault", "Geert", "Bart", "Stijn", "Arnaud", "Maxime",
        ),
        female=("Sofie", "Els", "Annelies", "Nathalie", "Julie", "Lien"),
        surnames=(
            "Peeters", "Janssens", "Maes", "Jacobs", "Mertens", "Willems", "Claes", "Goossens",
            "Wouters", "De Smet", "Dubois", "Lambert", "Dupont", "Leclercq", "Lejeune",
            "Vermeersch", "Van Damme", "De Backer", "Verstraete", "Hermans", "Michiels", "Cools",
            "Wuyts", "Lemaire", "Renard", "Vandenberghe", "Claessens",
        ),
        female_surnames=None,
        double_surname=False,
        cities=(
            "Brussel", "Antwerpen", "Gent", "Charleroi", "Liège", "Brugge", "Namur", "Leuven",
            "Mons", "Mechelen", "Hasselt", "Kortrijk",
        ),
        clubs=("Molenclub {city}", "Cercle du Moulin {city}"),
        events=("Toernooi {city} {year}", "Tournoi de {city} {year}"),
        championships=("Belgisch Kampioenschap", "Beker van België"),
    ),
    Country(
        code="GBR",
        weight=0.03,
        group="WEST",
        male=(
            "David", "John", "Michael", "Paul", "Andrew", "Mark", "James", "Richard", "Peter",
            "Stephen", "Robert", "Simon", "Christopher", "Gareth", "Alistair", "Callum", "Oliver",
            "Harry", "Rhys", "Ewan",
        ),
        female=("Sarah", "Emma", "Claire", "Helen", "Rachel", "Lucy", "Siân", "Fiona"),
        surnames=(
            "Smith", "Jones", "Williams", "Taylor", "Brown", "Davies", "Evans", "Wilson", "Thomas",
            "Johnson", "Roberts", "Robinson", "Thompson", "Wright", "Walker", "White", "Edwards",
            "Hughes", "Green", "Hall", "Lewis", "Harris", "Clarke", "Patel", "Jackson", "Wood",
            "Turner", "Cooper", "Hill", "O'Brien", "MacDonald", "Campbell",
        ),
        female_surnames=None,
        double_surname=False,
        cities=(
            "London", "Birmingham", "Manchester", "Leeds", "Glasgow", "Edinburgh", "Bristol",
            "Cardiff", "Liverpool", "Sheffield", "Nottingham", "York", "Oxford", "Cambridge",
        ),
        clubs=("{city} Morris Club", "{city} Mill Players"),
        events=("{city} Open {year}", "{city} Congress {year}", "{city} Rapidplay {year}"),
        championships=("British Championship", "British Rapidplay Championship"),
    ),
    Country(
        code="SWE",
        weight=0.02,
        group="NORTH",
        male=(
            "Lars", "Anders", "Johan", "Per", "Erik", "Karl", "Nils", "Mikael", "Björn", "Magnus",
            "Gustav", "Oskar", "Henrik", "Fredrik", "Sven", "Linus", "Måns",
        ),
        female=("Anna", "Karin", "Maria", "Ingrid", "Åsa", "Elin", "Sofia"),
        surnames=(
            "Andersson", "Johansson", "Karlsson", "Nilsson", "Eriksson", "Larsson", "Olsson",
            "Persson", "Svensson", "Gustafsson", "Pettersson", "Jönsson", "Hansson", "Bengtsson",
            "Lindberg", "Jakobsson", "Magnusson", "Lindström", "Olofsson", "Lindqvist",
            "Lindgren", "Berg", "Axelsson", "Bergström", "Lundberg", "Mattsson", "Åberg", "Sjöberg",
        ),
        female_surnames=None,
        double_surname=False,
        cities=(
            "Stockholm", "Göteborg", "Malmö", "Uppsala", "Västerås", "Örebro", "Linköping",
            "Helsingborg", "Jönköping", "Norrköping", "Lund", "Umeå",
        ),
        clubs=("Kvarnklubben {city}", "{city} Kvarnsällskap"),
        events=("Kvarnturnering {city} {year}", "{city} Open {year}"),
        championships=("Svenska Mästerskapen", "Sverigecupen"),
    ),
    Country(
        code="DNK",
        weight=0.02,
        group="NORTH",
        male=(
            "Jens", "Peter", "Lars", "Søren", "Niels", "Henrik", "Anders", "Morten", "Rasmus",
            "Mads", "Jesper", "Thomas", "Kasper", "Mikkel", "Frederik", "Bjørn", "Jørgen",
        ),
        female=("Mette", "Hanne", "Anne", "Susanne", "Camilla", "Louise", "Ida"),
        surnames=(
            "Nielsen", "Jensen", "Hansen", "Pedersen", "Andersen", "Christensen", "Larsen",
            "Sørensen", "Rasmussen", "Jørgensen", "Petersen", "Madsen", "Kristensen", "Olsen",
            "Thomsen", "Christiansen", "Poulsen", "Johansen", "Møller", "Mortensen", "Knudsen",
            "Jakobsen", "Mikkelsen", "Frederiksen", "Holm", "Eriksen", "Østergaard",
            "Vestergaard",
        ),
        female_surnames=None,
        double_surname=False,
        cities=(
            "København", "Aarhus", "Odense", "Aalborg", "Esbjerg", "Randers", "Kolding",
            "Horsens", "Vejle", "Roskilde", "Herning", "Silkeborg",
        ),
        clubs=("{city} Mølleklub",),
        events=("Mølleturnering {city} {year}", "{city} Open {year}"),
        championships=("Danmarksmesterskabet", "Pokalturneringen"),
    ),
    Country(
        code="PRT",
        weight=0.02,
        group="SOUTH",
        male=(
            "João", "José", "António", "Francisco", "Manuel", "Pedro", "Rui", "Luís", "Paulo",
            "Tiago", "Miguel", "Nuno", "Ricardo", "Bruno", "Gonçalo", "Duarte", "Rodrigo",
            "Vasco",
        ),
        female=("Maria", "Ana", "Inês", "Beatriz", "Catarina", "Sofia", "Mariana", "Joana"),
        surnames=(
            "Silva", "Santos", "Ferreira", "Pereira", "Oliveira", "Costa", "Rodrigues", "Martins",
            "Jesus", "Sousa", "Fernandes", "Gonçalves", "Gomes", "Lopes", "Marques", "Alves",
            "Almeida", "Ribeiro", "Pinto", "Carvalho", "Teixeira", "Moreira", "Correia", "Mendes",
            "Nunes", "Soares", "Vieira", "Monteiro", "Cardoso", "Rocha", "Magalhães", "Simões",
        ),
        female_surnames=None,
        double_surname=True,
        cities=(
            "Lisboa", "Porto", "Braga", "Coimbra", "Funchal", "Setúbal", "Aveiro", "Évora", "Faro",
            "Viseu", "Guimarães", "Leiria",
        ),
        clubs=("Clube de Trilha {city}", "Moinho Clube {city}"),
        events=("Torneio de {city} {year}", "Open de {city} {year}"),
        championships=("Campeonato Nacional", "Taça de Portugal"),
    ),
    Country(
        code="USA",
        weight=0.04,
        group="AMERICAS",
        male=(
            "Michael", "James", "John", "Robert", "David", "William", "Richard", "Joseph",
            "Christopher", "Daniel", "Matthew", "Anthony", "Joshua", "Kevin", "Brian", "Jason",
            "Ryan", "Tyler", "Ethan", "Luis", "Carlos",
        ),
        female=("Jennifer", "Jessica", "Ashley", "Emily", "Sarah", "Megan", "Amanda", "Olivia"),
        surnames=(
            "Smith", "Johnson", "Williams", "Brown", "Jones", "Garcia", "Miller", "Davis",
            "Rodriguez", "Martinez", "Hernandez", "Lopez", "Gonzalez", "Wilson", "Anderson",
            "Thomas", "Taylor", "Moore", "Jackson", "Martin", "Lee", "Thompson", "White", "Harris",
            "Sanchez", "Clark", "Ramirez", "Lewis", "Robinson", "Walker", "Young", "Nguyen", "Kim",
            "Schneider", "Kowalski", "O'Connor",
        ),
        female_surnames=None,
        double_surname=False,
        cities=(
            "New York", "Chicago", "Boston", "Philadelphia", "Seattle", "Denver", "Austin",
            "Portland", "Minneapolis", "Atlanta", "Pittsburgh", "San Diego",
        ),
        clubs=("{city} Mill Society", "{city} Morris Club"),
        events=("{city} Open {year}", "{city} Classic {year}"),
        championships=("U.S. Championship", "U.S. Open Championship"),
    ),
)
# fmt: on
"""The member federations; weights sum to 1."""

INTERNATIONAL_CHAMPIONSHIP = "World Championship {year}"
INTERNATIONAL_OPENS = ("International Open {city} {year}", "{city} International {year}")
"""Regular events that invite players from a whole region or the world."""
