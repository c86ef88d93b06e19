# ruff: noqa: E501  (prose passages and questions: one line each)
"""A small labelled retrieval set, written for this benchmark (no downloads).

Twenty-four short passages on distinct topics, composed by the Pantheon authors from
general knowledge and released with the code (so public domain in effect), and questions
labelled with the passage that answers them. Most questions paraphrase their passage
with few shared words, so keyword search alone cannot always find it; six are in
German, French or Spanish, to exercise the multilingual model. It is small: read the
recall figures as a comparison of the three modes on the same data, not as an absolute.
"""

from __future__ import annotations

PASSAGES: dict[str, str] = {
    "lighthouses": "Lighthouses guided ships along dangerous coasts. Before electricity, keepers trimmed wicks and wound clockwork that turned the lens. A Fresnel lens bends light from a small flame into a beam visible for many miles. Most towers are now automated and the keepers are gone.",
    "sourdough": "Sourdough bread rises without packaged yeast. A starter of flour and water collects wild yeasts and lactic acid bacteria, which produce gas and a sour taste. Bakers feed the starter daily and keep a portion back for the next loaf.",
    "honeybees": "Honey bees tell their sisters where flowers are by dancing. In the waggle dance the angle of the run on the comb shows the direction relative to the sun, and its length shows the distance. A colony can hold tens of thousands of workers and a single queen.",
    "glaciers": "Glaciers form where more snow falls each winter than melts each summer. The snow compacts into ice that flows slowly downhill under its own weight. Moving ice scrapes rock and carves U-shaped valleys; when it retreats it leaves moraines of gravel.",
    "chess": "In chess each side starts with sixteen pieces. The knight moves in an L shape and is the only piece that can jump over others. Castling moves the king two squares toward a rook, which then crosses to the king's other side.",
    "volcanoes": "Volcanoes erupt when molten rock rises through cracks in the crust. Runny basalt lava builds broad shield volcanoes such as those of Hawaii, while sticky magma traps gas and explodes violently. Ash from a large eruption can cool the climate for a year.",
    "tides": "Tides are caused mostly by the Moon's gravity pulling on the oceans. Two bulges of water form, one facing the Moon and one on the far side, so most coasts see two high tides a day. When Sun and Moon line up the range is largest, called a spring tide.",
    "coffee": "Coffee plants grow in the tropics, and their seeds are roasted to make the drink. Arabica beans come from highland plants and taste milder, while robusta contains more caffeine and resists disease. Roasting turns the green seeds brown through the Maillard reaction.",
    "printing": "Johannes Gutenberg built a printing press with movable metal type in Mainz around 1450. Letters cast in an alloy of lead, tin and antimony could be arranged, inked and reused. Books became cheaper and ideas spread faster across Europe.",
    "vaccines": "Vaccines train the immune system to recognise a germ without causing the disease. Edward Jenner showed in 1796 that material from cowpox protected people from smallpox. Smallpox was declared eradicated worldwide in 1980 after a long vaccination campaign.",
    "photosynthesis": "Plants make sugar from carbon dioxide and water using the energy of sunlight. The green pigment chlorophyll in chloroplasts absorbs red and blue light. Oxygen is released as a by-product, which is why forests and algae matter for the air we breathe.",
    "penguins": "Emperor penguins breed during the Antarctic winter. The female lays one egg and leaves for the sea, while the male balances it on his feet for about two months without eating. Thousands of males huddle together and take turns at the cold edge of the group.",
    "bicycles": "A bicycle stays upright mostly because the rider steers into a fall. Gears let the rider keep a comfortable pedalling speed on hills and flats. The chain drive and pneumatic tyres of the late nineteenth century made cycling practical for millions.",
    "compilers": "A compiler translates source code into machine instructions before the program runs. It parses the text into a syntax tree, checks types, optimises, and emits code for a processor. An interpreter instead executes the program step by step as it reads it.",
    "rainbows": "A rainbow appears when sunlight enters raindrops, bends, reflects inside them and bends again on the way out. Each colour bends by a slightly different angle, so white light spreads into a band from red to violet. You see one only with the Sun behind you.",
    "silk": "Silk comes from the cocoons of silkworms, which feed on mulberry leaves. Each cocoon is one continuous thread up to a kilometre long. For centuries the technique was guarded in China, and the trade routes to the west were named the Silk Road.",
    "earthquakes": "Earthquakes happen when stress along a fault is released suddenly and the rocks slip. Seismometers record the waves, and the magnitude scale is logarithmic, so each step means about thirty times more energy. Most quakes occur at the edges of tectonic plates.",
    "olive_oil": "Olive oil is pressed from the fruit of the olive tree, grown around the Mediterranean for thousands of years. Extra virgin oil is extracted mechanically without heat or solvents and has low acidity. Trees can live for many centuries and still bear fruit.",
    "telescopes": "Galileo turned a small refracting telescope to the sky in 1609. He saw mountains on the Moon, the phases of Venus and four moons circling Jupiter. Modern observatories use large mirrors instead of lenses because mirrors can be supported from behind.",
    "composting": "Composting turns kitchen scraps and garden waste into soil. Microbes break the material down; they need a mix of green nitrogen-rich matter and brown carbon-rich matter, some moisture and air. A well-turned heap becomes warm and is ready in a few months.",
    "octopuses": "Octopuses have eight arms lined with suckers that can taste what they touch. They change colour and texture in a fraction of a second using cells called chromatophores. With no bones, a large octopus can squeeze through any gap wider than its beak.",
    "railways": "The first public steam railway opened between Stockton and Darlington in 1825. Standard gauge track, 1435 millimetres between the rails, spread from Britain to much of the world. Railways made national time zones necessary, since each town had kept its own local time.",
    "salt": "Salt was so valuable in the ancient world that it was used to preserve food through winter and was taxed heavily. It is harvested by evaporating sea water in shallow pans or by mining old underground deposits. Table salt is sodium chloride.",
    "migration": "Many birds migrate thousands of kilometres between breeding and wintering grounds. They navigate using the Sun, the stars and the Earth's magnetic field. The Arctic tern travels from the Arctic to the Antarctic and back every year, the longest migration known.",
}

QUESTIONS: list[tuple[str, str]] = [
    ("How did ships avoid rocky shores at night in the past?", "lighthouses"),
    ("What kind of optic makes a small flame visible far out at sea?", "lighthouses"),
    ("How can dough become bread without commercial yeast?", "sourdough"),
    ("Why does naturally leavened loaf taste tangy?", "sourdough"),
    ("How do insects in a hive share the location of food?", "honeybees"),
    ("What does the direction of the waggle run tell other workers?", "honeybees"),
    ("What shapes valleys into a U in mountain regions?", "glaciers"),
    ("What piles of rock are left behind when ice sheets shrink?", "glaciers"),
    ("Which chess piece can leap over other pieces?", "chess"),
    ("What special move involves the king and a rook?", "chess"),
    ("Why are some eruptions explosive while others are gentle?", "volcanoes"),
    ("Can a big eruption make the weather colder?", "volcanoes"),
    ("Why does the sea level rise and fall twice a day?", "tides"),
    ("When is the difference between high and low water greatest?", "tides"),
    ("Which bean variety has more caffeine?", "coffee"),
    ("What chemical reaction browns the beans during roasting?", "coffee"),
    ("Who invented movable type printing in Europe?", "printing"),
    ("What metals were the letters cast from?", "printing"),
    ("How was smallpox eliminated?", "vaccines"),
    ("What did Jenner use to protect people from a deadly disease?", "vaccines"),
    ("How do plants turn light into food?", "photosynthesis"),
    ("Which pigment absorbs light in leaves?", "photosynthesis"),
    ("Which parent keeps the egg warm in Antarctica?", "penguins"),
    ("How do the birds survive the coldest winds on the ice?", "penguins"),
    ("Why doesn't a moving bike fall over?", "bicycles"),
    ("What invention made cycling comfortable for the masses?", "bicycles"),
    (
        "What is the difference between translating code ahead of time and running it line by line?",
        "compilers",
    ),
    ("What does a syntax tree have to do with building programs?", "compilers"),
    ("Why does white light split into colours after a shower?", "rainbows"),
    ("Where must the Sun be for you to see a coloured arc in the sky?", "rainbows"),
    ("What do the caterpillars that make fine fabric eat?", "silk"),
    ("Why is an ancient trade route named after a fabric?", "silk"),
    ("What causes the ground to shake suddenly?", "earthquakes"),
    ("How much more energy does one step of magnitude mean?", "earthquakes"),
    ("How is the best grade of oil from olives made?", "olive_oil"),
    ("How old can the trees that give us this oil become?", "olive_oil"),
    ("What did Galileo discover around Jupiter?", "telescopes"),
    ("Why do big observatories use mirrors rather than lenses?", "telescopes"),
    ("How do I turn food waste into garden soil?", "composting"),
    ("Why does a heap of garden waste get hot?", "composting"),
    ("How do these sea animals change colour so fast?", "octopuses"),
    ("How can a large cephalopod fit through a tiny hole?", "octopuses"),
    ("When did the first public steam line open?", "railways"),
    ("Why did trains lead to standard time zones?", "railways"),
    ("How was food kept through winter in ancient times?", "salt"),
    ("How is sodium chloride obtained from the sea?", "salt"),
    ("Which bird flies from pole to pole each year?", "migration"),
    ("How do birds find their way over long distances?", "migration"),
    ("Wie finden Bienen den Weg zu den Blumen?", "honeybees"),
    ("Warum gibt es zweimal am Tag Hochwasser?", "tides"),
    ("Comment le pain au levain lève-t-il sans levure du commerce ?", "sourdough"),
    ("Qui a inventé l'imprimerie à caractères mobiles ?", "printing"),
    ("¿Cómo sobreviven los pingüinos al invierno antártico?", "penguins"),
    ("¿Qué causa los terremotos?", "earthquakes"),
]
