#!/usr/bin/env python3
"""Rebuilds concept_sets.tsv and lemmas.tsv (kcomp's Ordered CommonGen data).

concept_sets.tsv: the 192 four-concept sets of CommonGen-lite, taken from any
`model_outputs/*.json` of allenai/CommonGen-Eval (Apache-2.0; every file holds the same
400 items, 192 of them with four concepts): one line per set, in file order, with the
item's `id` and its `concept_set` (word_POS, N = noun, V = verb) in the file's order.

lemmas.tsv: for each concept word, the surface forms that count as the concept: the word,
its noun plural and its verb forms (3rd person -s, -ing, past, past participle), from
regular English rules plus the irregular lists below. Both the noun and the verb forms are
listed for every word, whatever its POS in the set: a lemmatiser (the paper uses spaCy)
maps "fishing" to "fish" whether the concept was fish_N or fish_V.

Usage: python3 extract.py CommonGen-Eval/model_outputs/gpt-4-0613.json
(run from this folder; writes both files here). Python 3 standard library only.
"""
import json
import re
import sys

IRREGULAR_NOUNS = {
    "foot": ["feet"], "tooth": ["teeth"], "knife": ["knives"], "sheep": ["sheep"],
    "fish": ["fish", "fishes"], "man": ["men"], "woman": ["women"], "child": ["children"],
    "person": ["people"], "mouse": ["mice"], "leaf": ["leaves"], "wolf": ["wolves"],
    "shelf": ["shelves"], "life": ["lives"], "wife": ["wives"], "loaf": ["loaves"],
    "half": ["halves"], "goose": ["geese"], "ox": ["oxen"], "deer": ["deer"],
}
# past, past participle (extra forms after them)
IRREGULAR_VERBS = {
    "beat": ["beat", "beaten"], "blow": ["blew", "blown"], "build": ["built"],
    "catch": ["caught"], "cut": ["cut"], "dive": ["dove", "dived"], "draw": ["drew", "drawn"],
    "drink": ["drank", "drunk"], "drive": ["drove", "driven"], "eat": ["ate", "eaten"],
    "fall": ["fell", "fallen"], "feed": ["fed"], "feel": ["felt"], "give": ["gave", "given"],
    "hang": ["hung", "hanged"], "hit": ["hit"], "hold": ["held"], "lay": ["laid"],
    "leap": ["leapt", "leaped"], "put": ["put"], "read": ["read"], "ride": ["rode", "ridden"],
    "run": ["ran", "run"], "say": ["said"], "sew": ["sewed", "sewn"],
    "shave": ["shaved", "shaven"], "shear": ["sheared", "shorn"], "shoot": ["shot"],
    "sit": ["sat"], "spin": ["spun"], "stand": ["stood"], "swim": ["swam", "swum"],
    "swing": ["swung"], "take": ["took", "taken"], "teach": ["taught"],
    "throw": ["threw", "thrown"], "wear": ["wore", "worn"], "write": ["wrote", "written"],
    "see": ["saw", "seen"], "go": ["went", "gone"], "make": ["made"], "get": ["got", "gotten"],
    "break": ["broke", "broken"], "tear": ["tore", "torn"], "saw": ["sawed", "sawn"],
}
# CommonGen's lemma "bobsle" is its lemmatiser's cut of "bobsled".
SPECIAL = {
    "bobsle": ["bobsled", "bobsleds", "bobsledding", "bobsledded"],
    "singe": ["singes", "singeing", "singed"],
    "ski": ["skis", "skiing", "skied"],
}
VOWELS = set("aeiou")


def plural(w):
    return IRREGULAR_NOUNS.get(w) or regular_s(w)


def regular_s(w):
    """The regular -s form (noun plural and verb 3rd person)."""
    if re.search(r"(s|x|z|ch|sh)$", w):
        return [w + "es"]
    if len(w) > 1 and w.endswith("y") and w[-2] not in VOWELS:
        return [w[:-1] + "ies"]
    return [w + "s"]


def doubles(w):
    """A one-syllable consonant-vowel-consonant word doubles its last letter (chop, run)."""
    groups = re.findall(r"[aeiou]+", w)
    return (len(groups) == 1 and len(w) >= 3 and w[-1] not in VOWELS | set("wxy")
            and w[-2] in VOWELS and w[-3] not in VOWELS)


def verb_forms(w):
    third = regular_s(w)
    if w.endswith("ie"):
        ing = w[:-2] + "ying"
    elif w.endswith("e") and not w.endswith(("ee", "ye", "oe")):
        ing = w[:-1] + "ing"
    elif doubles(w):
        ing = w + w[-1] + "ing"
    else:
        ing = w + "ing"
    if w.endswith("e"):
        ed = w + "d"
    elif len(w) > 1 and w.endswith("y") and w[-2] not in VOWELS:
        ed = w[:-1] + "ied"
    elif doubles(w):
        ed = w + w[-1] + "ed"
    else:
        ed = w + "ed"
    past = IRREGULAR_VERBS.get(w, [ed])
    return third + [ing] + past


def forms(w):
    if w in SPECIAL:
        out = [w] + SPECIAL[w]
    else:
        out = [w] + plural(w) + verb_forms(w)
    seen = []
    for f in out:
        if f not in seen:
            seen.append(f)
    return seen


def main():
    items = json.load(open(sys.argv[1], encoding="utf-8"))
    sets = [x for x in items if len(x["concept_set"]) == 4]
    assert len(sets) == 192, len(sets)
    with open("concept_sets.tsv", "w", encoding="utf-8") as f:
        f.write("# index\tid\tconcepts (word_POS, CommonGen-lite order)\n")
        for i, x in enumerate(sets):
            f.write(f"{i}\t{x['id']}\t{' '.join(x['concept_set'])}\n")
    words = sorted({c.rsplit("_", 1)[0] for x in sets for c in x["concept_set"]})
    with open("lemmas.tsv", "w", encoding="utf-8") as f:
        f.write("# concept word\tforms that count as it (the word first)\n")
        for w in words:
            f.write(f"{w}\t{' '.join(forms(w))}\n")
    # Forms shared by two concepts of one set: reported, scored as either (see the docs).
    table = {w: set(forms(w)) for w in words}
    for x in sets:
        ws = [c.rsplit("_", 1)[0] for c in x["concept_set"]]
        for a in range(4):
            for b in range(a + 1, 4):
                shared = table[ws[a]] & table[ws[b]]
                if shared:
                    print(f"set {x['id']}: {ws[a]} and {ws[b]} share {sorted(shared)}")


if __name__ == "__main__":
    main()
