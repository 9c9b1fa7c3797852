// Data for IPR-synth. Hand-written for this project; every title, dish name, app, service
// and person is invented (combinatorial names), so no gazetteer can leak the gold entity.
#include "bench/ipr_data/ipr_data.h"

#include <iterator>

namespace ontomem::ipr_data {

#define IPR_LIST(name, ...)                                   \
  static const char* const name##_items[] = {__VA_ARGS__};   \
  const StrList name = {name##_items, std::size(name##_items)};

// ------------------------------------------------------------------ entity pools
IPR_LIST(kTitleAdj, "Glass", "Silent", "Crimson", "Hollow", "Paper", "Winter", "Velvet", "Broken",
         "Golden", "Final", "Quiet", "Burning", "Northern", "Iron", "Midnight", "Salt", "Distant",
         "Painted", "Copper", "Lonely", "Hidden", "Wild", "Falling", "Electric", "Frozen", "Amber",
         "Scarlet", "Secret", "Silver", "Restless", "Borrowed", "Forgotten", "Sunken", "Crooked",
         "Hungry", "Lucky", "Tender", "Savage", "Drifting", "Patient")
IPR_LIST(kTitleNoun, "Orchard", "Harbor", "Lantern", "Meridian", "Tide", "Compass", "Kingdom",
         "Ledger", "Garden", "Signal", "Frontier", "Carousel", "Archive", "Horizon", "Station",
         "Cathedral", "Ember", "Labyrinth", "Tempest", "Voyage", "Canyon", "Empire", "Mirror",
         "Parade", "Vineyard", "Circuit", "Monsoon", "Citadel", "Requiem", "Lighthouse",
         "Caravan", "Observatory", "Sparrow", "Avalanche", "Pilgrim", "Sonata", "Glacier",
         "Outpost", "Reckoning", "Masquerade")
IPR_LIST(kPlotRole, "retired boxer", "lighthouse keeper", "twin sisters", "stranded astronaut",
         "jazz pianist", "art forger", "runaway bride", "chess prodigy", "deep-sea diver",
         "night-shift nurse", "disgraced chef", "circus acrobat", "grumpy widower",
         "teenage hacker", "border guard", "beekeeper", "ballet dancer", "rookie detective",
         "shipwrecked sailor", "travelling magician")
IPR_LIST(kPlotPlace, "in Lisbon", "on a night train", "in the Arctic", "in 1920s Shanghai",
         "on Mars", "in a tiny Welsh village", "in a flooded city", "at a ski resort",
         "in the Sahara", "on a cargo ship", "in Havana", "in a haunted hotel", "in Reykjavik",
         "on a space station", "in Tuscany", "in Mumbai", "in a mining town",
         "on a remote island", "in Kyoto", "in a snowed-in cabin")
IPR_LIST(kServices, "Flixora", "ReelBox", "CineVault", "Vidora", "Marqueo", "Screenly",
         "PopcornTV", "Lumiflix", "Kinetra", "Streamwell", "Tellyhub", "Nightreel", "Cinemoth",
         "Framely", "Bingeport")
IPR_LIST(kToolStem, "Pebble", "Orbit", "Tandem", "Quill", "Beacon", "Sprout", "Nimbus", "Cobalt",
         "Fathom", "Juniper", "Kestrel", "Lumen", "Marble", "Nectar", "Otter", "Pixel", "Quartz",
         "Ripple", "Saffron", "Thistle", "Umber", "Vellum", "Willow", "Zephyr", "Basil", "Cinder",
         "Dapple", "Fennel", "Gusto", "Hazel", "Indigo", "Jasper", "Koala", "Lark", "Mosaic",
         "Nova", "Opal", "Puffin", "Quokka", "Raven")
IPR_LIST(kToolSuffix, "ly", "pad", "board", "desk", "nest", "flow", "base", "list", "deck", "hub",
         "note", "mark", "stack", "wise", "loop", "grid", "book", "plan", "sync", "box")
IPR_LIST(kHabits, "the Pomodoro technique", "time blocking", "a weekly review", "inbox zero",
         "the two-minute rule", "eating the frog first thing", "a daily shutdown ritual",
         "morning pages", "batching my email", "a standing desk", "a done list", "theme days",
         "a paper planner", "walking meetings", "the 1-3-5 list", "single-tasking",
         "a phone-free hour", "the Eisenhower matrix", "timeboxing", "an evening brain dump",
         "body doubling", "the 52-17 rhythm", "no-meeting Wednesdays",
         "a Sunday planning session", "noise-cancelling headphones")
IPR_LIST(kNicknames, "the Friday special", "the old faithful", "the purple one", "my little secret",
         "the lifesaver", "the usual", "number seven", "the green monster", "the comfort classic",
         "big blue", "the good stuff", "the weekday hero", "the house favourite", "the sidekick",
         "the rescue plan", "old reliable", "the magic trick", "the golden ticket", "the workhorse",
         "the happy place", "the secret weapon", "the mothership", "the little engine",
         "the lucky charm", "the north star")
IPR_LIST(kNames, "Ana", "Ben", "Chloe", "Dev", "Elif", "Farid", "Greta", "Hamid", "Imogen", "Jonas",
         "Keiko", "Leon", "Maren", "Nikhil", "Odile", "Pavel", "Quinn", "Rosa", "Sami", "Tova",
         "Ulrich", "Vera", "Wanjiru", "Xavi", "Yara", "Zoltan", "Amara", "Bruno", "Celine",
         "Dario", "Esme", "Felix", "Gwen", "Hugo", "Ines", "Jalen", "Kofi", "Lina", "Mateo",
         "Noor", "Oskar", "Priya", "Rafe", "Sunniva", "Tomas", "Uma", "Viggo", "Wren", "Yusuf",
         "Zara", "Arlo", "Bea", "Cato", "Dina", "Emre", "Fleur", "Gideon", "Hana", "Ivo", "Juno")

// Allergen bits: 1 peanuts, 2 tree nuts, 4 gluten, 8 dairy, 16 eggs, 32 shellfish, 64 sesame,
// 128 soy, 256 fish.
IPR_LIST(kAllergenNames, "peanuts", "tree nuts", "gluten", "dairy", "eggs", "shellfish", "sesame",
         "soy", "fish")
const DishBase kDishBases[] = {
    {"tofu", 0, 128},        {"chickpea", 0, 0},       {"lentil", 0, 0},
    {"aubergine", 0, 0},     {"mushroom", 0, 0},       {"jackfruit", 0, 0},
    {"tempeh", 0, 128},      {"butternut squash", 0, 0}, {"black bean", 0, 0},
    {"cauliflower", 0, 0},   {"sweet potato", 0, 0},   {"spinach", 0, 0},
    {"halloumi", 1, 8},      {"paneer", 1, 8},         {"egg", 1, 16},
    {"ricotta", 1, 8},       {"feta", 1, 8},           {"goat cheese", 1, 8},
    {"salmon", 2, 256},      {"prawn", 2, 32},         {"cod", 2, 256},
    {"tuna", 2, 256},        {"mussel", 2, 32},        {"squid", 2, 32},
    {"chicken", 3, 0},       {"lamb", 3, 0},           {"pork", 3, 0},
    {"beef", 3, 0},          {"duck", 3, 0},           {"chorizo", 3, 0},
};
const size_t kNumDishBases = std::size(kDishBases);
const DishStyle kDishStyles[] = {
    {"curry", "Indian", 0},          {"tagine", "Moroccan", 0},
    {"pad thai", "Thai", 1 | 16},    {"satay skewers", "Indonesian", 1 | 128},
    {"ramen", "Japanese", 4 | 128},  {"tacos", "Mexican", 0},
    {"risotto", "Italian", 8},       {"lasagne", "Italian", 4 | 8 | 16},
    {"stir-fry", "Chinese", 128},    {"burrito", "Mexican", 4},
    {"pho", "Vietnamese", 0},        {"laksa", "Malaysian", 2},
    {"shawarma wrap", "Levantine", 4 | 64}, {"katsu", "Japanese", 4 | 16},
    {"biryani", "Indian", 8},        {"paella", "Spanish", 0},
    {"gnocchi", "Italian", 4 | 8},   {"bibimbap", "Korean", 16 | 64 | 128},
    {"dumplings", "Chinese", 4 | 64 | 128}, {"pie", "British", 4 | 8},
    {"korma", "Indian", 2 | 8},      {"pesto pasta", "Italian", 2 | 4 | 8},
    {"shakshuka", "Middle Eastern", 16}, {"enchiladas", "Mexican", 8},
    {"poke bowl", "Hawaiian", 64 | 128},
};
const size_t kNumDishStyles = std::size(kDishStyles);

// ------------------------------------------------------------------ shared slot values
IPR_LIST(kGenres, "romance", "thriller", "sci-fi", "comedy", "period drama", "animated",
         "heist", "western", "documentary", "war", "mystery", "coming-of-age")
IPR_LIST(kDiets, "vegan", "vegetarian", "pescatarian", "keto", "gluten-free", "dairy-free",
         "halal", "kosher", "paleo", "low-carb")
const int kDietClass[] = {0, 1, 2, -1, -1, -1, -1, -1, -1, -1};
IPR_LIST(kAllergies, "peanuts", "tree nuts", "shellfish", "sesame", "eggs", "soy", "fish",
         "mustard", "celery", "lupin", "kiwi", "strawberries")
const uint32_t kAllergyBits[] = {1, 2, 32, 64, 16, 128, 256, 0, 0, 0, 0, 0};
IPR_LIST(kFoodDislikes, "coriander", "olives", "anchovies", "blue cheese", "raw onion", "capers",
         "liquorice", "beetroot", "okra", "pickles", "marzipan", "tinned sweetcorn")
IPR_LIST(kMovieAvoid, "subtitles", "jump scares", "gory scenes", "three-hour runtimes",
         "sad endings", "musical numbers", "shaky handheld camerawork", "on-screen animal deaths",
         "slow-burn plots", "loud action sequences", "dubbed dialogue", "cliffhanger endings")
IPR_LIST(kMovieCompany, "my seven-year-old sits in on everything I stream",
         "my nan lives with us and joins me every evening",
         "my partner dozes off during anything slow",
         "my twins are nine and insist on joining",
         "my teenage nephew stays over most Fridays",
         "my flatmate shares the telly with me and she is very squeamish",
         "my husband only really enjoys stuff that makes him laugh",
         "my eight-year-old daughter is my viewing buddy",
         "my mum comes round every Sunday and hates bad language",
         "my partner is hard of hearing so we rely on captions",
         "my in-laws moved in and they are in their eighties",
         "my boyfriend is terrified of anything spooky")
IPR_LIST(kToolCategories, "kanban board", "to-do list app", "note-taking app", "calendar app",
         "time tracker", "habit tracker", "mind-mapping tool")
IPR_LIST(kSchedules, "I do the school run at three every afternoon",
         "I work night shifts on Tuesdays and Wednesdays",
         "I am completely useless before ten in the morning",
         "I have a standing call with Singapore at seven",
         "I leave at half four sharp for football training",
         "my brain is sharpest straight after lunch",
         "I commute two hours by train each way",
         "I am only in the office Mondays and Thursdays",
         "I look after my dad every morning until eleven",
         "I teach a spin class at noon on weekdays",
         "I juggle clients in three time zones",
         "I need an hour of quiet before I can think straight")
IPR_LIST(kWorkAvoid, "push notifications", "back-to-back meetings", "open-plan noise",
         "long email threads", "colour-coded systems", "steep learning curves",
         "gamified streaks", "subscription paywalls", "endless chat pings",
         "overcomplicated dashboards", "surprise calendar invites", "cluttered interfaces")
IPR_LIST(kRelations, "flatmate", "sister", "colleague", "cousin", "neighbour", "boss", "brother",
         "best mate", "uncle", "aunt", "dentist", "barber")

// ------------------------------------------------------------------ template components
// Placeholders: {v} value, {old} previous value, {alias} nickname/description,
// {friend} a person's name, {rel} a relation word. Cores have no final punctuation.
IPR_LIST(kStmtOpen, "", "Honestly, ", "Just so you know, ", "Fun fact: ",
         "Not sure I've mentioned it, but ", "By the way, ", "Random, but ", "For the record, ",
         "Between us, ", "Okay, confession: ", "Thinking about it, ", "I should say, ",
         "Side note: ", "Oh, and ", "Funny story, ", "To be fair, ", "Truthfully, ",
         "I'll be honest: ", "Speaking of which, ", "On that note, ", "Quick thing: ",
         "As it happens, ", "Believe it or not, ", "Come to think of it, ", "Full disclosure: ",
         "Heads up, ", "Mind you, ", "Ha, well, ", "So, ", "Look, ")
IPR_LIST(kStmtClose, ".", "!", " - anyway.", ", for what it's worth.", ", if that's useful.",
         " :)", ", haha.", ", no joke.", ", seriously.", " - worth remembering.", ", just saying.",
         ", for the record.", "...", ", truly.", " - that's me.", ", to be clear.", ". Anyway!",
         ", ha.", ". That's all.", ", full stop.")
IPR_LIST(kQueryOpen, "", "Quick question: ", "Hey, ", "So, ", "Okay, ", "Right, ", "Hmm, ",
         "Help me out: ", "Random one: ", "Question for you: ", "Alright, ",
         "Let me pick your brain: ", "Thinking out loud: ", "Hey there, ", "Um, ",
         "One more thing: ", "Sorry to bother you, but ", "Ok so ", "Curious: ", "Real talk: ")
IPR_LIST(kQueryClose, "?", "? Any ideas?", "? What do you reckon?", "? I'm stuck.", "? Thoughts?",
         "? Open to suggestions.", "? No rush.", "? Be honest.", "?!", "? Go.",
         "? Surprise me.", "? Keep it simple.", "? Cheers.", "? Thanks in advance.",
         "? Need a hand here.", "? I trust you.", "? Whatever you think.", "??",
         "? Pretty please.", "? Ta.")

IPR_LIST(kLikeCores, "{v} is my absolute favourite", "nothing beats {v} for me",
         "I'm completely obsessed with {v}", "I never get tired of {v}",
         "{v} has my heart", "I keep coming back to {v}", "{v} is basically my comfort pick",
         "I adore {v}", "{v} is the best thing I've found in years",
         "I'd choose {v} over anything", "{v} makes me ridiculously happy",
         "I'm a massive fan of {v}", "I could go on about {v} forever",
         "{v} never lets me down", "I'm hooked on {v}")
IPR_LIST(kAversionCores, "I can't stand {v}", "{v} are a dealbreaker for me",
         "please spare me {v}", "I really struggle with {v}", "{v} drive me up the wall",
         "I have zero patience for {v}", "I avoid {v} like the plague",
         "{v} ruin it for me every time", "{v} are just not my thing",
         "anything with {v} is a hard no", "{v} put me off straight away",
         "I've never coped well with {v}", "I draw the line at {v}",
         "{v} make me miserable", "no {v} for me, thank you")
IPR_LIST(kAllergyCores, "I'm allergic to {v}", "{v} put me in hospital once",
         "I carry an EpiPen because of {v}", "I react badly to {v}",
         "my doctor told me to keep well away from {v}", "I break out in hives from {v}",
         "{v} are off limits for me, medically", "I have a proper allergy to {v}",
         "even a trace of {v} sets me off", "I found out the hard way that {v} and I don't mix",
         "I got tested and {v} came back positive", "I have to check labels for {v}",
         "one bite of {v} and my throat swells up", "{v} are dangerous for me",
         "I've had an anaphylactic reaction to {v}")
IPR_LIST(kDietCores, "I've been {v} for years", "I'm strictly {v}", "I went {v} a while back",
         "I keep {v} these days", "I stick to a {v} diet", "I'm fully {v} now",
         "I try to stay {v} at every meal", "I've gone {v} and I'm sticking with it",
         "my household is {v}", "I'm {v}, no exceptions", "I live {v}",
         "I'm a committed {v} eater", "being {v} matters a lot to me", "I follow a {v} plan",
         "I only do {v}")
IPR_LIST(kHabitCores, "I swear by {v}", "{v} is the only thing that keeps me on track",
         "I've been doing {v} for ages", "{v} changed my working life",
         "I rely on {v} every single day", "without {v} I fall apart", "I'm a big believer in {v}",
         "{v} is my secret to getting stuff done", "I've built my routine around {v}",
         "{v} works brilliantly for me", "I'm religious about {v}", "I can't function without {v}",
         "{v} is non-negotiable for me", "my best weeks are the ones with {v}",
         "I stick to {v} like glue")
IPR_LIST(kScheduleCores, "{v}", "just a heads up that {v}", "worth knowing: {v}",
         "my week is shaped by this: {v}", "one constraint I have is that {v}",
         "the thing about my days is that {v}", "for context, {v}", "keep in mind that {v}",
         "reality check: {v}", "the awkward part is that {v}", "my routine is fixed because {v}",
         "the big limitation is that {v}", "something to factor in: {v}",
         "logistics-wise, {v}", "I ought to flag that {v}")
IPR_LIST(kCompanyCores, "{v}", "for context, {v}", "the thing is, {v}", "bear in mind that {v}",
         "at home {v}", "one detail: {v}", "these days {v}", "worth knowing: {v}",
         "the situation at ours is that {v}", "I should flag that {v}", "household update: {v}",
         "evenings are tricky because {v}", "the other thing is {v}", "practically speaking, {v}",
         "long story short, {v}")
IPR_LIST(kPlatformCores, "the only subscription we pay for is {v}",
         "we cancelled everything except {v}", "{v} is the one service in our house",
         "we only have {v} at home", "{v} is all we've got at the moment",
         "I'm down to just {v} to save money", "{v} is the one account I kept",
         "we share a {v} login and that's it", "everything else got cut, we kept {v}",
         "my whole setup is {v}", "we're a {v}-only household",
         "I dropped the rest and kept {v}", "the telly only runs {v}",
         "money's tight so it's {v} or nothing", "{v} is our one streaming account")
IPR_LIST(kUpdateLikeCores, "I've gone off {old} lately, {v} is my new favourite",
         "{old} doesn't do it for me any more; these days it's {v}",
         "change of heart: {v} has replaced {old} for me",
         "I've moved on from {old}, now I'm all about {v}",
         "forget what I said about {old}, {v} is the one now",
         "update: {v} beat {old}, no contest",
         "I was into {old}, but {v} has totally taken over",
         "{old} is old news, I'm hooked on {v} instead",
         "turns out I prefer {v} to {old} after all",
         "scratch {old}, {v} is where it's at for me now",
         "I switched from {old} to {v} and I'm not going back",
         "these days {v} wins, {old} lost its shine",
         "{v} has taken the top spot from {old}",
         "I've dropped {old} completely in favour of {v}",
         "my new obsession is {v}, sorry {old}")
IPR_LIST(kUpdateDietCores, "I'm not {old} any more, I've been {v} since the spring",
         "small change: I switched from {old} to {v}", "I stopped being {old}; I'm {v} now",
         "I used to be {old} but I've gone {v}", "update: {v} now, not {old}",
         "after years of being {old} I've moved to {v}",
         "my doctor suggested I go {v}, so no longer {old}",
         "I gave up on {old} and went {v}", "I'm {v} these days rather than {old}",
         "new year, new me: {v} instead of {old}", "I've traded {old} for {v}",
         "{old} didn't suit me, so I'm {v} now", "I dropped {old} and I'm {v} at the moment",
         "I'm trying {v} now that I've stopped {old}", "as of last month I'm {v}, not {old}")
IPR_LIST(kAliasIntroCores, "so you know what I mean later, {v} is {alias}",
         "{friend} and I call {v} {alias}", "when I say {alias}, I mean {v}",
         "{v} is what I call {alias}", "around here {v} goes by {alias}",
         "my {rel} nicknamed {v} {alias} and it stuck", "in my head {v} is just {alias}",
         "if I ever mention {alias}, that's {v}", "{alias} is our name for {v}",
         "{v}, also known as {alias} in my family", "we renamed {v} {alias} years ago",
         "{friend} started calling {v} {alias}", "shorthand: {alias} means {v}",
         "{v} got the nickname {alias} from my {rel}", "for reference, {alias} equals {v}")
IPR_LIST(kRecurCueForms, "the {c} {v}", "that {c} {v}", "{v}, the {c}", "{v} (a {c})",
         "this {c}, {v}", "the {c} called {v}", "{v}, a {c}", "{v} - such a {c} -",
         "{v}, a proper {c}", "{v} (the {c})")
IPR_LIST(kFriendLikeCores, "my {rel} {friend} is obsessed with {v}",
         "{friend}, my {rel}, won't shut up about {v}",
         "my {rel} swears {v} is the best thing ever, not my cup of tea though",
         "{friend} keeps pushing {v} on me", "my {rel} is a huge fan of {v}",
         "{friend} says {v} changed their life", "my {rel} has a whole shrine to {v}",
         "{friend} can't stop talking about {v}", "my {rel} {friend} would pick {v} every time",
         "{v} is {friend}'s thing, not mine", "my {rel} rates {v} really highly",
         "{friend} raves about {v} constantly", "my {rel} is weirdly into {v}",
         "{friend} gifted me a voucher because they love {v}",
         "{v} is my {rel}'s all-time number one")
IPR_LIST(kDislikedOnceCores, "tried {v} last week and it really wasn't for me",
         "gave {v} a go once, never again", "{v} was a total letdown",
         "I don't get the hype about {v}", "{v} bored me to tears",
         "I sat through {v} and regretted it", "{v} left me cold", "{v} was a waste of an evening",
         "I gave {v} a fair shot and hated it", "{v} did nothing for me",
         "I bailed on {v} halfway", "{v} was a miss for me", "{v} was just meh",
         "not a fan of {v} after trying it", "{v} really disappointed me")
IPR_LIST(kUsedToCores, "I used to be crazy about {v}, but not any more",
         "{v} was my thing back at uni, I've moved on", "I loved {v} as a teenager, weird phase",
         "years ago I'd have picked {v}, not now", "{v} was a big deal for me once, not these days",
         "I went through a {v} phase, it's over", "I was into {v} ages ago",
         "I've grown out of {v}", "{v} used to be my go-to, back in the day",
         "my old self loved {v}", "once upon a time I couldn't get enough of {v}",
         "I burned out on {v} years back", "{v} and I had a moment, it passed",
         "I was hooked on {v} in my twenties", "I'm over {v} now, though I liked it once")
IPR_LIST(kHypotheticalCores, "I wonder whether I'd like {v}", "would {v} be my kind of thing, do you think",
         "maybe one day I'll try {v}", "if I had more time I might look into {v}",
         "I've been curious about {v}", "in another life I'd probably love {v}",
         "I could imagine getting into {v}", "should I give {v} a chance sometime",
         "if someone paid me I'd try {v}", "{v} might be worth a look someday",
         "part of me wants to try {v}", "I keep meaning to check out {v}",
         "hypothetically, would {v} suit me", "no idea if {v} is for me",
         "I'm on the fence about trying {v}")
IPR_LIST(kQuestionCores, "have you heard anything about {v}", "is {v} any good",
         "what's the deal with {v}", "do you know much about {v}", "who's behind {v}",
         "is {v} popular these days", "how long has {v} been around",
         "what do people say about {v}", "is {v} overrated", "where did {v} even come from",
         "did {v} win any awards", "is {v} expensive", "why is everyone talking about {v}",
         "what's so special about {v}", "is {v} new")
IPR_LIST(kAcks, "Noted!", "Good to know.", "Got it.", "Ha, fair enough.", "Thanks for telling me.",
         "I'll keep that in mind.", "Makes sense.", "Oh, interesting!", "Understood.",
         "Right you are.", "Useful to hear.", "Cool, cool.", "Okay, filed away.",
         "Ah, I didn't know that.", "Nice one.", "Sure thing.", "Hah, love that.",
         "Totally get it.", "Fair.", "Right, okay.")
IPR_LIST(kChitChatUser, "Work has been hectic this week.", "The weather finally turned.",
         "My neighbour's dog barked all night again.", "I finally fixed the leaky tap.",
         "Traffic was a nightmare this morning.", "I've started running again, slowly.",
         "My phone screen cracked yesterday.", "I spent the weekend repainting the hallway.",
         "The train was forty minutes late.", "I think I'm coming down with a cold.",
         "My sister just got engaged!", "I've been sleeping badly lately.",
         "We had a power cut last night.", "My bike got a flat tyre on the way in.",
         "I signed up for a pottery class.", "The garden is a jungle right now.",
         "I lost my keys twice today.", "My landlord is finally fixing the boiler.",
         "I went to a friend's wedding on Saturday.", "It's been raining for five days straight.",
         "I'm thinking of learning Spanish.", "My laptop battery is dying.",
         "I bumped into an old school friend.", "The gym was packed tonight.",
         "I'm helping my cousin move flats.", "I finally booked a dentist appointment.",
         "My plants are not doing well.", "I've been reading a lot of history.",
         "Our street is being dug up again.", "My knee has been sore since the hike.")
IPR_LIST(kChitChatPartner, "Oh no, that sounds annoying.", "Ha, classic.", "How did that go?",
         "That's great news!", "Hope it gets better soon.", "Sounds like quite a week.",
         "Wow, tell me more.", "That's rough.", "Nice, good for you!", "Oh, I feel that.",
         "Ugh, the worst.", "Ooh, exciting.", "Did you sort it out in the end?",
         "Hang in there.", "That's a lot to deal with.", "Fingers crossed.",
         "Ha, I can picture it.", "Love that for you.", "How are you holding up?",
         "Sounds exhausting.", "What a saga.", "Aw, that's lovely.",
         "Oh wow, out of nowhere!", "Hopefully it settles down.", "Keep me posted.",
         "That made me laugh.", "Very relatable.", "Good luck with it!",
         "Oof, been there.", "Well done for pushing through.")
IPR_LIST(kReactions, "Oh nice.", "Ah, fair enough.", "Ooh, okay.", "Right.", "That figures.",
         "Oh, I see.", "Ha, okay!", "Gotcha.", "Sounds good.", "Hmm, okay.", "Ahh.",
         "That tracks.", "Oh, fun.", "Oh dear.", "Understood!")
IPR_LIST(kExplicitCores, "what did I tell you about {v}", "remind me what I said about {v}",
         "did I ever mention {v}", "what was my take on {v}", "when did I bring up {v}",
         "what's my history with {v}", "can you recall what I said on {v}",
         "what do you remember about me and {v}", "how did I feel about {v} again",
         "did I say something about {v} earlier", "what was it I mentioned regarding {v}",
         "did we talk about {v} before", "what's my stance on {v}",
         "refresh my memory about {v}", "where did I land on {v}")
IPR_LIST(kEllipsisCores, "so what would you suggest", "any thoughts on what I should do about it",
         "what would you go for, then", "what do you think, given that", "so, what's the move",
         "how would you handle it", "what would work then", "so what now",
         "what's your call on that", "given all that, what should I do",
         "and what would you recommend for it", "so how do I play this",
         "what's the plan, then", "what's your advice there", "so which way should I go")

// Query cores, one list per query type (see kQueryTypes in ipr_synth.cc).
IPR_LIST(kQ0,  // MovieRec pick: needs favourite + things to avoid
         "what should I put on this weekend", "what's worth streaming tonight",
         "any idea what I could settle down with on Friday evening",
         "what should I go for on the sofa tonight", "can you line something up for me for later",
         "I've got a free evening, what should I queue up", "what would you pick for my lazy Sunday",
         "help me choose what to see this weekend", "what's a safe bet for tonight's screen time",
         "which one should I start tonight",
         "I need something to unwind with after work, what do you suggest",
         "what's a good pick for a rainy afternoon in", "got a recommendation for my night in",
         "what should I fire up after work", "what could I binge this weekend")
IPR_LIST(kQ1,  // MovieRec similar: needs favourite
         "what else might I enjoy along the same lines", "anything new out that's right up my street",
         "find me something in the same spirit as my usual go-to", "what would scratch the same itch",
         "recommend me something in that same vein", "what's a good follow-up to my all-timer",
         "I want more of what I usually enjoy, any picks", "what else would click with my taste",
         "what's the closest match to my usual thing", "got anything that feels like my top pick",
         "what should come next on my list, based on what I enjoy",
         "surprise me with something close to my usual", "what would someone with my taste queue next",
         "anything similar to my number one", "what would fit my taste best right now")
IPR_LIST(kQ2,  // MovieRec household: needs company + things to avoid
         "what can we all see together tonight", "what's good for a cosy night in with everyone home",
         "what should I stream for the whole household", "pick something the whole crew can enjoy",
         "what can I put on that works for everybody at ours", "family evening tonight, what should we see",
         "we're all on the sofa later, what should we stream", "what works for a shared screen tonight",
         "any suggestion for a group viewing at home", "what can we enjoy together on Saturday",
         "what's a crowd-pleaser for the people I live with", "what keeps everyone at home happy tonight",
         "what should go on the big screen this evening", "everyone's in tonight, what do we see",
         "what's safe for a joint viewing later")
IPR_LIST(kQ3,  // FoodPref dinner: needs diet + allergy + dislikes
         "what should I make tonight", "any idea what I could cook for supper",
         "what should I throw together this evening", "plan me something for tonight's table",
         "what could I whip up after work", "what's a good thing to prepare for later",
         "help me decide what goes on the plates tonight", "what should I cook on Sunday",
         "what can I rustle up quickly tonight", "give me a plan for tonight's supper",
         "I have an hour to prepare something, what should it be",
         "what should I shop for to cook this week", "what would you put on my menu tonight",
         "what's a weeknight winner for me", "what should I prep for the week ahead")
IPR_LIST(kQ4,  // FoodPref eating out: needs favourite + diet + allergy
         "where should we book for my birthday", "which place should I pick for date night",
         "where should I take my parents on Saturday", "can you suggest somewhere to go out on Friday",
         "where should we go to celebrate the promotion", "pick a spot for our anniversary",
         "where would I enjoy going out this weekend", "what kind of place should I reserve for Sunday lunch",
         "where should the team go for drinks and a bite", "where should I head for a treat tonight",
         "help me choose a venue for my leaving do", "where's a good spot for a catch-up with friends",
         "which takeaway should I order tonight", "where should we stop on the road trip",
         "what sort of place should I book for my mum's visit")
IPR_LIST(kQ5,  // FoodPref baking/snacks: needs diet + allergy
         "what could I bring to the office bake sale", "what treat could I make for the school fair",
         "what should I take to the picnic", "what snacks should I pack for the road trip",
         "what could I bake this weekend", "what should I bring to the potluck",
         "what's a good thing to stash in my desk drawer", "what should I pack for the hike",
         "what can I prepare for the kids' party", "what dessert could I make for friends",
         "what would be a safe contribution to the bring-a-plate", "what should I grab for the long flight",
         "what should go in the lunchbox tomorrow", "what could I make for the neighbours",
         "what should I have on hand for the movie marathon")
IPR_LIST(kQ6,  // ProductivityAssist planning: needs habit + schedule
         "how should I lay out tomorrow", "can you draft my day for Monday",
         "help me structure next week", "how would you organise my Thursday",
         "what should my ideal workday look like", "how do I fit the report into this week",
         "can you plan out my Friday", "what's the smartest order for my jobs tomorrow",
         "when should I tackle the hard stuff this week", "sketch me a routine for the week",
         "how should I split my hours tomorrow", "map out my day so I stay sane",
         "can you arrange my week around the deadline", "give me a game plan for Wednesday",
         "how would you shape my day around the big presentation")
IPR_LIST(kQ7,  // ProductivityAssist setup: needs tool + aversions
         "where should I keep track of the launch checklist", "how should I organise the wedding planning",
         "what's the best way to track the house move", "how should I keep on top of the renovation",
         "where should the conference prep live", "how do I manage the new side project",
         "what's the right setup for the volunteering rota", "how should I track my thesis chapters",
         "where should I put all the holiday admin", "how should I run the book club logistics",
         "what's a good home for the fundraising to-dos", "how do I stay across the visa paperwork",
         "help me set up a system for the kitchen refit", "how should I manage the garden project",
         "where should I jot the podcast episode ideas")
IPR_LIST(kQ8,  // ProductivityAssist focus: needs habit + aversions
         "how do I get through this report without losing steam", "I keep drifting, what should I do",
         "how can I stay locked in this afternoon", "how do I stop procrastinating on the slides",
         "what's the trick to getting the essay finished today", "how can I concentrate with a deadline looming",
         "how do I power through the backlog", "how can I make a dent in my inbox this morning",
         "what should I do when my attention keeps wandering", "how do I stay sharp through the long review",
         "how can I crank out the proposal by five", "what would help me concentrate right now",
         "how should I attack this mountain of marking", "how do I keep momentum on the budget sheet",
         "how can I stop getting distracted every ten minutes")
const StrList kQueryCores[9] = {kQ0, kQ1, kQ2, kQ3, kQ4, kQ5, kQ6, kQ7, kQ8};

// Ellipsis cue lines (said by the user just before an elliptic query), per query type.
IPR_LIST(kC0, "Finally got the whole weekend to myself.", "My Friday plans just fell through.",
         "I'm knackered and staying in tonight.", "Got the flat to myself this evening.",
         "Sunday's looking completely empty.", "Just finished a brutal week.",
         "It's pouring outside, not going anywhere.", "I've got the remote and a blanket sorted.",
         "Nothing on the calendar tonight for once.", "Feeling like a cosy night in.")
IPR_LIST(kC1, "I've been craving more of my usual kind of thing.", "I've run out of stuff I like.",
         "My queue is completely empty now.", "I finished the last one I was saving.",
         "I'm in the mood for more of the same.", "Nothing new has grabbed me lately.",
         "I've exhausted my go-to list.", "I keep scrolling and nothing fits.",
         "I want another one like my favourites.", "Everything recommended to me lately has missed.")
IPR_LIST(kC2, "Everyone's home tonight for once.", "The whole household is free this evening.",
         "We're doing a group night on the sofa later.", "The family wants to hang out together tonight.",
         "I promised everyone at home a shared evening.", "We've got a rare night with all of us in.",
         "Saturday is officially a together night at ours.", "Nobody's going out tonight.",
         "The house is full this weekend.", "We're all piling onto the sofa after tea.")
IPR_LIST(kC3, "Just got home and I'm starving.", "The fridge is looking a bit sad.",
         "I told my partner I'd sort tonight's supper.", "I've got guests coming round at eight.",
         "It's my turn to feed everyone tonight.", "I'm doing the big shop tomorrow.",
         "Long day, need something proper tonight.", "My in-laws are staying over this week.",
         "I want to stop ordering in so much.", "I've got the evening free to be in the kitchen.")
IPR_LIST(kC4, "It's my birthday next Saturday.", "My parents are visiting this weekend.",
         "We've got our anniversary coming up.", "I just got a promotion at work!",
         "Some old friends are in town on Friday.", "I want to treat myself tonight.",
         "The team wants to celebrate the launch.", "My mum is coming to stay.",
         "We're heading out on a road trip.", "I've got a date on Thursday.")
IPR_LIST(kC5, "There's a bake sale at work on Monday.", "The school fair is coming up.",
         "We're having a picnic on Sunday.", "I've got a long drive on Saturday.",
         "My friends are doing a potluck.", "The kids' party is next week.",
         "I'm flying long-haul tomorrow.", "We're going hiking this weekend.",
         "I need to pack lunches for the week.", "The neighbours invited us round.")
IPR_LIST(kC6, "Tomorrow is going to be chaos.", "Next week is packed.",
         "I've got a big deadline on Friday.", "Monday is looking rough.",
         "My week just got rearranged.", "I've got the presentation on Thursday.",
         "Everything is landing at once this week.", "I'm back from leave on Monday.",
         "My manager dumped three new jobs on me.", "The quarter ends next week.")
IPR_LIST(kC7, "We're launching the new product next month.", "We finally set a wedding date.",
         "We're moving house in six weeks.", "The renovation starts soon.",
         "I'm organising the conference this year.", "I've started a side project.",
         "I'm running the volunteer rota now.", "My thesis is getting out of hand.",
         "I've got a pile of holiday admin to sort.", "I took over the book club.")
IPR_LIST(kC8, "This report is due at five.", "I've been staring at the same slide for an hour.",
         "My essay is half done and I'm flagging.", "I can't concentrate today.",
         "The backlog is enormous.", "My inbox has hit four hundred.",
         "I keep picking up my phone.", "The budget sheet is doing my head in.",
         "I've got a mountain of marking.", "I've restarted this paragraph five times.")
const StrList kCueLines[9] = {kC0, kC1, kC2, kC3, kC4, kC5, kC6, kC7, kC8};

IPR_LIST(kDomainVocabulary, "movie", "movies", "film", "films", "cinema", "watch", "watched",
         "watching", "show", "series", "netflix", "stream", "streaming", "tv", "vegan", "vegetarian",
         "allergic", "allergy", "allergies", "food", "eat", "eating", "ate", "cook", "cooking",
         "cooked", "dinner", "lunch", "breakfast", "meal", "restaurant", "recipe", "dish", "bake",
         "baking", "snack", "diet", "app", "apps", "productivity", "productive", "schedule",
         "calendar", "task", "tasks", "notes", "focus", "meeting", "meetings", "habit", "habits",
         "routine", "planner", "favorite", "favourite", "pizza", "cake", "coffee", "tea",
         "cookies", "dessert", "snacks")

}  // namespace ontomem::ipr_data
