#include "extract/drills.h"

#include <fmt/format.h>

#include <random>
#include <string>
#include <string_view>

namespace ontomem::extract {
namespace {

using V = std::vector<std::string>;

const V kActivities = {"hiking", "painting", "pottery", "yoga", "swimming", "cycling", "photography", "gardening",
                       "knitting", "rock climbing", "skateboarding", "baking", "surfing", "chess", "dancing",
                       "camping", "fishing", "running", "meditation", "woodworking", "video games", "board games",
                       "calligraphy", "birdwatching", "sailing", "skiing", "journaling", "drawing", "singing"};
const V kLikeThings = {"jazz", "hip hop", "country music", "classical music", "sci-fi movies", "horror movies",
                       "fantasy novels", "mystery novels", "spicy food", "Thai food", "sushi", "tacos", "dark chocolate",
                       "iced coffee", "green tea", "documentaries", "anime", "poetry", "live music", "vintage cars",
                       "sunsets", "the beach", "rainy days", "musicals", "stand-up comedy", "podcasts", "Taylor Swift",
                       "Harry Potter", "Star Wars", "the Beatles", "football", "basketball", "tennis", "gardens"};
const V kDislikeThings = {"traffic", "cilantro", "crowds", "mornings", "olives", "horror movies", "spiders",
                          "reality TV", "loud music", "cold weather", "small talk", "mushrooms", "country music",
                          "long meetings", "public speaking", "flying", "mayonnaise", "jazz", "snow", "cleaning"};
const V kAllergens = {"peanuts", "shellfish", "cats", "pollen", "gluten", "dairy", "penicillin", "bee stings",
                      "tree nuts", "eggs", "dust", "latex", "strawberries", "soy"};
const V kDiets = {"vegan", "vegetarian", "pescatarian", "keto", "gluten-free", "paleo", "halal", "kosher",
                  "low-carb", "dairy-free"};
const V kAvoid = {"alcohol", "caffeine", "sugar", "social media", "red meat", "soda", "fast food", "smoking",
                  "gambling", "junk food", "energy drinks"};
const V kHabitVerbs = {"run", "meditate", "journal", "swim", "stretch", "read", "pray", "cook", "walk the dog",
                       "lift weights", "practice piano", "go to the gym"};
const V kTools = {"Spotify", "Notion", "Duolingo", "Strava", "Google Calendar", "Evernote", "Trello", "Kindle",
                  "Instagram", "Slack", "Excel", "Photoshop", "Headspace", "Fitbit", "Uber"};
const V kOwned = {"car", "bike", "piano", "guitar", "house", "camera", "boat", "motorcycle", "telescope",
                  "laptop", "apartment", "bakery", "dance studio", "garden", "truck", "record player", "drone"};
const V kPets = {"dog", "cat", "puppy", "kitten", "parrot", "hamster", "rabbit", "turtle", "goldfish", "horse",
                 "snake", "guinea pig", "dogs", "cats"};
const V kKin = {"sister", "brother", "mom", "dad", "kids", "husband", "wife", "son", "daughter", "grandma",
                "grandpa", "cousin", "aunt", "uncle", "parents", "mother", "father", "children",
                "partner", "fiance", "nephew", "niece"};
const V kFriendWords = {"friend", "best friend", "buddy", "bestie"};
const V kPlaces = {"Boston", "Seattle", "London", "Berlin", "Toronto", "Chicago", "Denver", "Austin", "Paris",
                   "Tokyo", "Sydney", "Madrid", "Dublin", "Ohio", "Texas", "the suburbs", "a small town",
                   "the city", "Canada", "Sweden", "Brooklyn", "Miami"};
const V kJobs = {"nurse", "teacher", "software engineer", "barista", "chef", "lawyer", "accountant", "student",
                 "photographer", "firefighter", "doctor", "musician", "writer", "graphic designer", "plumber",
                 "social worker", "counselor", "pilot", "mechanic", "librarian", "carpenter", "artist"};
const V kGoals = {"become a teacher", "open a bakery", "travel the world", "write a book", "adopt a child",
                  "learn Spanish", "run a marathon", "start my own business", "buy a house", "go back to school",
                  "become a counselor", "learn to surf", "visit Japan", "get a master's degree",
                  "publish a novel", "open my own studio", "retire early", "climb Kilimanjaro"};
const V kConditions = {"asthma", "diabetes", "anxiety", "a bad back", "migraines", "ADHD", "insomnia",
                       "a knee injury", "arthritis", "depression", "high blood pressure", "celiac disease"};
const V kBeliefs = {"karma", "God", "fate", "second chances", "hard work", "kindness", "science", "equality",
                    "destiny", "love at first sight"};
const V kFaiths = {"Catholic", "Buddhist", "Christian", "Muslim", "Jewish", "Hindu", "atheist"};
const V kNames = {"Sam", "Maria", "Jake", "Priya", "Tom", "Lena", "Carlos", "Mia", "Omar", "Grace", "Leo",
                  "Nina", "Ravi", "Emma", "Jon", "Aisha", "Kenji", "Fatima", "Bjorn", "Chloe", "Diego", "Hana",
                  "Ibrahim", "Olga", "Pedro", "Zoe", "Tariq", "Ingrid", "Malik", "Rosa", "Wei", "Yasmin",
                  "Arjun", "Bea", "Dmitri", "Elif", "Femi", "Gus", "Keiko", "Luca", "Noor", "Patrick"};
// Specific friends and other people the speaker knows ("my coworker Ben loves ...").
const V kPeopleWords = {"coworker", "neighbor", "roommate", "boss", "classmate", "teammate", "colleague"};
// Vocabulary of the polarity, modality and group drills below: food, film and TV, books, sport,
// games, outdoors and gadgets; no gardening, cars or music, so that the phenomenon tests
// (tests/extract_phenomena_test.cc) check other domains.
const V kStanceThings = {"spicy food", "sushi", "tacos", "dark chocolate", "iced coffee", "green tea", "documentaries",
                         "anime", "poetry", "stand-up comedy", "podcasts", "board games", "video games",
                         "crossword puzzles", "road trips", "thrillers", "romantic comedies", "fantasy novels",
                         "basketball", "tennis", "football", "museums", "farmers markets", "pancakes", "street food",
                         "baking shows", "true crime podcasts", "escape rooms", "ramen", "curry", "waffles",
                         "trivia nights", "bowling", "theme parks", "cruises", "sci-fi series", "detective stories",
                         "Marvel movies", "Agatha Christie", "the Olympics", "Mario Kart", "Studio Ghibli films"};
const V kStanceActivities = {"hiking", "pottery", "yoga", "swimming", "cycling", "photography", "knitting",
                             "rock climbing", "skateboarding", "baking", "surfing", "chess", "camping", "fishing",
                             "running", "woodworking", "calligraphy", "birdwatching", "sailing", "skiing",
                             "journaling", "bouldering", "kayaking", "crocheting", "sketching", "pilates"};
const V kStanceOwned = {"camera", "boat", "telescope", "laptop", "tablet", "smartwatch", "treadmill", "kayak", "tent",
                        "espresso machine", "e-reader", "game console", "sewing machine", "microwave", "TV",
                        // nouns whose most frequent sense is an adjective
                        "antique", "collectible", "portable", "hammock", "grill", "3D printer"};
const V kHouseholdFoods = {"pork", "beef", "red meat", "shellfish", "dairy", "gluten", "processed food",
                           "refined sugar", "fried food", "soda", "alcohol", "caffeine", "fast food", "white bread"};
const V kOpen = {"", "", "", "Honestly, ", "Oh, ", "Yeah, ", "You know, ", "Well, ", "Haha, ", "Actually, ",
                 "Funny you ask, ", "Yes! ", "It's been a long week. ", "Thanks for asking! "};
const V kClose = {".", ".", "!", "!", " and it's great.", ", haha.", "...", " these days.", ", to be honest.",
                  " - it means a lot to me.", ". What about you?", ". How about you?", " :)"};

// Sentences that state no lasting fact (greetings, feelings of the moment, one-off events,
// the addressee), used around the fact sentences.
const V kFiller = {"That's so cool!", "Thanks for asking.", "It was a long day at work today.",
                   "We had a great time last weekend.", "How have you been?", "That sounds like a lot of fun.",
                   "I'm so happy for you!", "It really made my day.", "The weather has been crazy lately.",
                   "I went to a concert last night.", "We should catch up soon.", "Congrats on the new job!",
                   "What have you been up to?", "It was such a relief.", "I'm so tired today.",
                   "Let me know how it goes!", "That's a great idea.", "I totally get that.",
                   "Life has been busy.", "Good luck with everything!", "Wow, that's amazing!",
                   "You're doing great.", "I saw the pictures you posted.", "It's been a crazy week.",
                   "Thanks, that means a lot.", "I can't wait to hear more about it."};

struct Tmpl {
  const char* relation;  // "" = no fact (negative example)
  const char* modality;
  const char* pattern;   // {x} tail, {o} an old value of the same relation (past), {h} holder
                         // (kin word), {n} a name, {f} a friend word (HAS_FRIEND), {p} a person word
  const V* tails;
  bool kin_fact = false;  // "my {h}" also yields HAS_RELATIVE {h} (speaker, asserted)
};

const std::vector<Tmpl>& Templates() {
  static const std::vector<Tmpl> t = {
      // LIKES
      {"LIKES", "asserted", "I love {x}", &kLikeThings}, {"LIKES", "asserted", "I really enjoy {x}", &kActivities},
      {"LIKES", "asserted", "I'm a huge fan of {x}", &kLikeThings}, {"LIKES", "asserted", "{x} is my passion", &kActivities},
      {"LIKES", "asserted", "my favorite thing is {x}", &kLikeThings}, {"LIKES", "asserted", "I'm really into {x}", &kActivities},
      {"LIKES", "asserted", "I've always loved {x}", &kLikeThings}, {"LIKES", "asserted", "nothing makes me happier than {x}", &kActivities},
      {"LIKES", "asserted", "I adore {x}", &kLikeThings}, {"LIKES", "asserted", "I'm obsessed with {x}", &kLikeThings},
      {"LIKES", "negated", "I don't really care about {x}", &kLikeThings},
      {"LIKES", "hypothetical", "I think I'd enjoy {x}", &kActivities},
      {"LIKES", "hypothetical", "maybe I'd like {x} if I tried it", &kActivities},
      {"LIKES", "past", "I used to love {x}", &kLikeThings}, {"LIKES", "past", "as a kid I loved {x}", &kActivities},
      {"LIKES", "reported", "my {h} loves {x}", &kLikeThings, true},
      {"LIKES", "reported", "{n} is really into {x}", &kActivities},
      // DISLIKES
      {"DISLIKES", "asserted", "I hate {x}", &kDislikeThings}, {"DISLIKES", "asserted", "I can't stand {x}", &kDislikeThings},
      {"DISLIKES", "asserted", "I'm not a fan of {x}", &kDislikeThings}, {"DISLIKES", "asserted", "I don't like {x}", &kDislikeThings},
      {"DISLIKES", "asserted", "{x} really gets on my nerves", &kDislikeThings},
      {"DISLIKES", "past", "I used to hate {x}", &kDislikeThings},
      {"DISLIKES", "reported", "my {h} hates {x}", &kDislikeThings, true},
      // ALLERGIC_TO
      {"ALLERGIC_TO", "asserted", "I'm allergic to {x}", &kAllergens}, {"ALLERGIC_TO", "asserted", "I have a bad allergy to {x}", &kAllergens},
      {"ALLERGIC_TO", "negated", "I'm not allergic to {x}", &kAllergens},
      {"ALLERGIC_TO", "reported", "my {h} is allergic to {x}", &kAllergens, true},
      // FOLLOWS_DIET
      {"FOLLOWS_DIET", "asserted", "I'm {x}", &kDiets}, {"FOLLOWS_DIET", "asserted", "I've been {x} for two years", &kDiets},
      {"FOLLOWS_DIET", "asserted", "I follow a {x} diet", &kDiets}, {"FOLLOWS_DIET", "asserted", "I eat {x}", &kDiets},
      {"FOLLOWS_DIET", "hypothetical", "I'm thinking about going {x}", &kDiets},
      {"FOLLOWS_DIET", "past", "I used to be {x}", &kDiets}, {"FOLLOWS_DIET", "negated", "I'm not {x}", &kDiets},
      {"FOLLOWS_DIET", "reported", "my {h} is {x}", &kDiets, true},
      // AVOIDS
      {"AVOIDS", "asserted", "I don't drink {x}", &kAvoid}, {"AVOIDS", "asserted", "I stay away from {x}", &kAvoid},
      {"AVOIDS", "asserted", "I quit {x} last year", &kAvoid}, {"AVOIDS", "asserted", "I never touch {x}", &kAvoid},
      {"AVOIDS", "asserted", "I gave up {x} for good", &kAvoid},
      // HAS_HABIT
      {"HAS_HABIT", "asserted", "I {x} every morning", &kHabitVerbs}, {"HAS_HABIT", "asserted", "I go {x} every weekend", &kActivities},
      {"HAS_HABIT", "asserted", "I've been doing {x} for years", &kActivities}, {"HAS_HABIT", "asserted", "I usually {x} before bed", &kHabitVerbs},
      {"HAS_HABIT", "asserted", "I do {x} twice a week", &kActivities}, {"HAS_HABIT", "asserted", "I've been {x} a lot lately", &kActivities},
      {"HAS_HABIT", "negated", "I rarely {x} these days", &kHabitVerbs},
      {"HAS_HABIT", "past", "I used to {x} every day", &kHabitVerbs},
      {"HAS_HABIT", "hypothetical", "I should really start {x}", &kActivities},
      {"HAS_HABIT", "reported", "my {h} does {x} every weekend", &kActivities, true},
      // USES
      {"USES", "asserted", "I use {x} for everything", &kTools}, {"USES", "asserted", "I've been using {x} a lot", &kTools},
      {"USES", "asserted", "I rely on {x} every day", &kTools}, {"USES", "asserted", "I keep track of it all with {x}", &kTools},
      {"USES", "negated", "I don't use {x}", &kTools}, {"USES", "past", "I used to use {x}", &kTools},
      // OWNS
      {"OWNS", "asserted", "I have a {x}", &kOwned}, {"OWNS", "asserted", "I just bought a {x}", &kOwned},
      {"OWNS", "asserted", "my {x} broke down again", &kOwned}, {"OWNS", "asserted", "I own a {x}", &kOwned},
      {"OWNS", "asserted", "we finally got our own {x}", &kOwned},
      {"OWNS", "negated", "I don't have a {x}", &kOwned}, {"OWNS", "hypothetical", "I might buy a {x}", &kOwned},
      {"OWNS", "hypothetical", "should I get a {x}?", &kOwned}, {"OWNS", "past", "I used to have a {x}", &kOwned},
      {"OWNS", "reported", "my {h} has a {x}", &kOwned, true},
      // HAS_PET
      {"HAS_PET", "asserted", "I have a {x}", &kPets}, {"HAS_PET", "asserted", "my {x} {n} is so cute", &kPets},
      {"HAS_PET", "asserted", "we adopted a {x} last month", &kPets}, {"HAS_PET", "asserted", "I took my {x} to the vet", &kPets},
      {"HAS_PET", "asserted", "our {x} loves long walks", &kPets},
      {"HAS_PET", "negated", "I don't have a {x}", &kPets}, {"HAS_PET", "hypothetical", "I might get a {x}", &kPets},
      {"HAS_PET", "past", "I used to have a {x}", &kPets}, {"HAS_PET", "reported", "my {h} has a {x}", &kPets, true},
      // HAS_RELATIVE
      {"HAS_RELATIVE", "asserted", "my {x} is visiting this week", &kKin},
      {"HAS_RELATIVE", "asserted", "I spent the day with my {x}", &kKin},
      {"HAS_RELATIVE", "asserted", "my {x} and I went to the park", &kKin},
      {"HAS_RELATIVE", "asserted", "I called my {x} yesterday", &kKin},
      {"HAS_RELATIVE", "asserted", "my {x} always makes me laugh", &kKin},
      // HAS_FRIEND
      {"HAS_FRIEND", "asserted", "my {x} {n} came over yesterday", &kFriendWords},
      {"HAS_FRIEND", "asserted", "I met my {x} for coffee", &kFriendWords},
      // LIVES_IN
      {"LIVES_IN", "asserted", "I live in {x}", &kPlaces}, {"LIVES_IN", "asserted", "we moved to {x} last year", &kPlaces},
      {"LIVES_IN", "asserted", "I'm based in {x}", &kPlaces}, {"LIVES_IN", "past", "I used to live in {x}", &kPlaces},
      {"LIVES_IN", "past", "I grew up in {x}", &kPlaces}, {"LIVES_IN", "hypothetical", "I might move to {x}", &kPlaces},
      {"LIVES_IN", "reported", "my {h} lives in {x}", &kPlaces, true},
      // WORKS_AS
      {"WORKS_AS", "asserted", "I'm a {x}", &kJobs}, {"WORKS_AS", "asserted", "I work as a {x}", &kJobs},
      {"WORKS_AS", "asserted", "I got a job as a {x}", &kJobs}, {"WORKS_AS", "asserted", "I've been a {x} for ten years", &kJobs},
      {"WORKS_AS", "past", "I used to be a {x}", &kJobs}, {"WORKS_AS", "hypothetical", "I might become a {x}", &kJobs},
      {"WORKS_AS", "reported", "my {h} is a {x}", &kJobs, true},
      // WANTS
      {"WANTS", "asserted", "I want to {x}", &kGoals}, {"WANTS", "asserted", "my dream is to {x}", &kGoals},
      {"WANTS", "asserted", "I hope to {x} someday", &kGoals}, {"WANTS", "asserted", "I'd love to {x}", &kGoals},
      {"WANTS", "asserted", "I'm planning to {x}", &kGoals}, {"WANTS", "asserted", "I'm working towards my goal to {x}", &kGoals},
      {"WANTS", "past", "I used to want to {x}", &kGoals}, {"WANTS", "reported", "my {h} wants to {x}", &kGoals, true},
      // HAS_CONDITION
      {"HAS_CONDITION", "asserted", "I have {x}", &kConditions}, {"HAS_CONDITION", "asserted", "I was diagnosed with {x}", &kConditions},
      {"HAS_CONDITION", "asserted", "I've been dealing with {x}", &kConditions},
      {"HAS_CONDITION", "past", "I used to have {x}", &kConditions}, {"HAS_CONDITION", "reported", "my {h} has {x}", &kConditions, true},
      // BELIEVES
      {"BELIEVES", "asserted", "I believe in {x}", &kBeliefs}, {"BELIEVES", "asserted", "I'm {x}", &kFaiths},
      {"BELIEVES", "asserted", "I truly believe in {x}", &kBeliefs}, {"BELIEVES", "past", "I used to believe in {x}", &kBeliefs},
      {"BELIEVES", "reported", "my {h} believes in {x}", &kBeliefs, true},
      // more surface variety
      {"LIKES", "asserted", "{x} has always been my thing", &kLikeThings},
      {"LIKES", "asserted", "I've been really into {x} lately", &kActivities},
      {"LIKES", "asserted", "I'm crazy about {x}", &kLikeThings}, {"LIKES", "asserted", "{x} always cheers me up", &kLikeThings},
      {"LIKES", "asserted", "I find {x} so relaxing", &kActivities}, {"LIKES", "asserted", "I get so much joy from {x}", &kActivities},
      {"HAS_HABIT", "asserted", "I try to {x} every day", &kHabitVerbs}, {"HAS_HABIT", "asserted", "I started {x} recently", &kActivities},
      {"HAS_HABIT", "asserted", "I {x} whenever I can", &kHabitVerbs}, {"HAS_HABIT", "asserted", "{x} is part of my daily routine", &kActivities},
      {"HAS_HABIT", "asserted", "every Sunday I go {x}", &kActivities}, {"HAS_HABIT", "asserted", "I've been taking {x} classes", &kActivities},
      {"OWNS", "asserted", "I bought a {x} last week", &kOwned}, {"OWNS", "asserted", "I finally got my own {x}", &kOwned},
      {"OWNS", "asserted", "I've had my {x} for years", &kOwned}, {"OWNS", "asserted", "my new {x} is awesome", &kOwned},
      {"OWNS", "asserted", "I'm fixing up my old {x}", &kOwned},
      {"WANTS", "asserted", "I really want to {x}", &kGoals}, {"WANTS", "asserted", "one day I'd like to {x}", &kGoals},
      {"WANTS", "asserted", "my goal is to {x}", &kGoals}, {"WANTS", "asserted", "I've always wanted to {x}", &kGoals},
      {"WANTS", "asserted", "I'm saving up to {x}", &kGoals},
      {"HAS_PET", "asserted", "my {x} keeps me company", &kPets}, {"HAS_PET", "asserted", "I'm taking care of my {x}", &kPets},
      {"WORKS_AS", "asserted", "my job as a {x} keeps me busy", &kJobs}, {"WORKS_AS", "asserted", "I just started working as a {x}", &kJobs},
      {"HAS_CONDITION", "asserted", "my {x} has been acting up", &kConditions}, {"HAS_CONDITION", "asserted", "I'm struggling with {x}", &kConditions},
      {"LIVES_IN", "asserted", "I've lived in {x} all my life", &kPlaces}, {"LIVES_IN", "asserted", "life here in {x} is good", &kPlaces},
      {"HAS_RELATIVE", "asserted", "my {x} just graduated", &kKin}, {"HAS_RELATIVE", "asserted", "I'm so proud of my {x}", &kKin},
      {"HAS_RELATIVE", "asserted", "we visited my {x} last weekend", &kKin},
      {"BELIEVES", "asserted", "I've always believed in {x}", &kBeliefs},
      {"DISLIKES", "asserted", "{x} is just not for me", &kDislikeThings}, {"DISLIKES", "asserted", "I've never liked {x}", &kDislikeThings},
      {"DISLIKES", "asserted", "I really dislike {x}", &kDislikeThings},
      {"USES", "asserted", "I listen to everything on {x}", &kTools}, {"USES", "asserted", "I've been learning with {x}", &kTools},
      {"AVOIDS", "asserted", "I try to avoid {x}", &kAvoid}, {"AVOIDS", "asserted", "I cut out {x} completely", &kAvoid},
      // Negation scope: a negated negative is a liking, a negated positive a dislike.
      {"LIKES", "asserted", "{x} has never let me down", &kStanceThings},
      {"LIKES", "asserted", "{x} never disappoints", &kStanceThings},
      {"LIKES", "asserted", "I can never get enough of {x}", &kStanceThings},
      {"LIKES", "asserted", "I just can't get enough of {x}", &kStanceThings},
      {"LIKES", "asserted", "I could never get bored of {x}", &kStanceThings},
      {"LIKES", "asserted", "I wouldn't miss {x} for anything", &kStanceThings},
      {"LIKES", "asserted", "I'd never say no to {x}", &kStanceThings},
      {"LIKES", "asserted", "I could never give up {x}", &kStanceActivities},
      {"LIKES", "asserted", "{x} never gets old", &kStanceThings},
      {"LIKES", "asserted", "I couldn't live without {x}", &kStanceThings},
      {"LIKES", "asserted", "I don't mind {x} at all", &kStanceThings},
      {"LIKES", "asserted", "there's nothing better than {x}", &kStanceThings},
      {"LIKES", "asserted", "nothing compares to {x}", &kStanceThings},
      {"HAS_HABIT", "asserted", "I never skip {x}", &kStanceActivities},
      {"HAS_HABIT", "asserted", "I never miss a chance to go {x}", &kStanceActivities},
      {"DISLIKES", "asserted", "I've never been a fan of {x}", &kStanceThings},
      {"DISLIKES", "asserted", "I'm not a big fan of {x}", &kStanceThings},
      {"DISLIKES", "asserted", "I don't enjoy {x} at all", &kStanceThings},
      {"DISLIKES", "asserted", "I'm not really into {x}", &kStanceThings},
      {"DISLIKES", "asserted", "{x} has never appealed to me", &kStanceThings},
      {"DISLIKES", "asserted", "I couldn't care less about {x}", &kStanceThings},
      {"DISLIKES", "asserted", "I can't say I enjoy {x}", &kStanceThings},
      {"DISLIKES", "asserted", "{x} is not my thing", &kStanceThings},
      {"DISLIKES", "asserted", "{x} isn't really my cup of tea", &kStanceThings},
      {"DISLIKES", "asserted", "I can't bear {x}", &kStanceThings},
      {"DISLIKES", "asserted", "I never enjoyed {x}", &kStanceThings},
      {"DISLIKES", "asserted", "{x} just isn't for me", &kStanceThings},
      {"DISLIKES", "asserted", "{x} bores me to death", &kStanceThings},
      {"DISLIKES", "asserted", "I find {x} exhausting", &kStanceActivities},
      {"DISLIKES", "asserted", "{x} always disappoints me", &kStanceThings},
      // Negated facts (the negation reverses no opinion word).
      {"OWNS", "negated", "I've never owned a {x}", &kStanceOwned},
      {"OWNS", "negated", "I don't even have a {x}", &kStanceOwned},
      {"FOLLOWS_DIET", "negated", "I've never been {x}", &kDiets},
      {"HAS_PET", "negated", "I've never had a {x}", &kPets},
      // Hypotheticals.
      {"OWNS", "hypothetical", "if I ever get a {x}, I'll let you know", &kStanceOwned},
      {"OWNS", "hypothetical", "if I ever buy a {x}, it'll be a used one", &kStanceOwned},
      {"OWNS", "hypothetical", "if I could afford a {x}, I'd get one tomorrow", &kStanceOwned},
      {"OWNS", "hypothetical", "I'd love to own a {x} one day", &kStanceOwned},
      {"HAS_PET", "hypothetical", "if I ever adopt a {x}, I'll name it after you", &kPets},
      {"HAS_HABIT", "hypothetical", "if I had more time, I'd take up {x}", &kStanceActivities},
      {"HAS_HABIT", "hypothetical", "maybe I'll get into {x} next year", &kStanceActivities},
      {"LIKES", "hypothetical", "I might try {x} one of these days", &kStanceThings},
      {"LIKES", "hypothetical", "I might give {x} a try", &kStanceThings},
      {"LIKES", "hypothetical", "I'd probably love {x} if I tried it", &kStanceThings},
      {"LIKES", "hypothetical", "I've been thinking about trying {x}", &kStanceThings},
      {"LIKES", "hypothetical", "I wonder if I'd enjoy {x}", &kStanceThings},
      {"FOLLOWS_DIET", "hypothetical", "if I went {x}, I'd miss cheese", &kDiets},
      // Reported speech, also with negation scope.
      {"LIKES", "reported", "my {h} can't get enough of {x}", &kStanceThings, true},
      {"LIKES", "reported", "my {h} swears by {x}", &kStanceThings, true},
      {"LIKES", "reported", "my {h} would never miss {x}", &kStanceThings, true},
      {"LIKES", "reported", "{n} says {x} never gets old", &kStanceThings},
      {"LIKES", "reported", "{n} told me they love {x}", &kStanceThings},
      {"DISLIKES", "reported", "my {h} has never liked {x}", &kStanceThings, true},
      {"DISLIKES", "reported", "my {h} is not a fan of {x}", &kStanceThings, true},
      {"DISLIKES", "reported", "{n} can't stand {x}", &kStanceThings},
      // Past: no longer current.
      {"LIKES", "past", "I used to be really into {x}", &kStanceThings},
      {"LIKES", "past", "I was obsessed with {x} as a teenager", &kStanceThings},
      {"LIKES", "past", "back in college I loved {x}", &kStanceThings},
      {"HAS_HABIT", "past", "I stopped {x} after the move", &kStanceActivities},
      {"HAS_HABIT", "past", "I gave up {x} a few years ago", &kStanceActivities},
      {"HAS_HABIT", "past", "I no longer do {x}", &kStanceActivities},
      {"HAS_HABIT", "past", "I don't do {x} anymore", &kStanceActivities},
      {"OWNS", "past", "I no longer have a {x}", &kStanceOwned},
      // Group first person: the household's diet and rules are the speaker's.
      {"FOLLOWS_DIET", "asserted", "we're {x} at home", &kDiets},
      {"FOLLOWS_DIET", "asserted", "we're a {x} family", &kDiets},
      {"FOLLOWS_DIET", "asserted", "everyone in our house is {x}", &kDiets},
      {"FOLLOWS_DIET", "asserted", "our whole family went {x} last year", &kDiets},
      {"FOLLOWS_DIET", "asserted", "we eat {x} at home", &kDiets},
      {"FOLLOWS_DIET", "asserted", "in my house we're all {x}", &kDiets},
      {"FOLLOWS_DIET", "asserted", "our kitchen is strictly {x}", &kDiets},
      {"FOLLOWS_DIET", "asserted", "we've been {x} as a family for years", &kDiets},
      {"AVOIDS", "asserted", "our family doesn't eat {x}", &kHouseholdFoods},
      {"AVOIDS", "asserted", "we don't eat {x} at home", &kHouseholdFoods},
      {"AVOIDS", "asserted", "we never buy {x}", &kHouseholdFoods},
      {"AVOIDS", "asserted", "nobody in our house eats {x}", &kHouseholdFoods},
      {"AVOIDS", "asserted", "we keep {x} out of the house", &kHouseholdFoods},
      {"LIKES", "asserted", "we all love {x}", &kStanceThings},
      {"LIKES", "asserted", "our family is obsessed with {x}", &kStanceThings},
      {"OWNS", "negated", "we don't have a {x} at home", &kStanceOwned},
      // Updates: the old value past, the new one current ("from X to Y", "used to X, now Y").
      {"LIKES", "asserted", "I used to love {o}, but these days I'm into {x}", &kStanceThings},
      {"LIKES", "asserted", "I was really into {o} for years, but now I prefer {x}", &kStanceThings},
      {"LIKES", "asserted", "{o} was my favorite, but now it's {x}", &kStanceThings},
      {"LIKES", "asserted", "I got tired of {o}, so now I'm into {x}", &kStanceThings},
      {"LIKES", "asserted", "I've gone from {o} to {x}", &kStanceThings},
      {"LIKES", "asserted", "these days I'd pick {x} over {o}", &kStanceThings},
      {"HAS_HABIT", "asserted", "I used to do {o}, but now I do {x}", &kStanceActivities},
      {"HAS_HABIT", "asserted", "I switched from {o} to {x} last year", &kStanceActivities},
      {"HAS_HABIT", "asserted", "I quit {o} and took up {x}", &kStanceActivities},
      {"HAS_HABIT", "asserted", "I replaced {o} with {x}", &kStanceActivities},
      {"OWNS", "asserted", "I used to have a {o}, but now I have a {x}", &kStanceOwned},
      {"OWNS", "asserted", "I traded my {o} for a {x}", &kStanceOwned},
      {"OWNS", "asserted", "I got rid of my {o} and bought a {x}", &kStanceOwned},
      {"FOLLOWS_DIET", "asserted", "I was {o} for years, but now I'm {x}", &kDiets},
      {"FOLLOWS_DIET", "asserted", "I went from {o} to {x}", &kDiets},
      {"USES", "asserted", "I switched from {o} to {x}", &kTools},
      {"USES", "asserted", "I stopped using {o}; I use {x} now", &kTools},
      {"LIKES", "past", "I was into {x}, but not anymore", &kStanceThings},
      {"LIKES", "past", "I'm not into {x} anymore", &kStanceThings},
      {"LIKES", "past", "I've outgrown {x}", &kStanceThings},
      {"HAS_HABIT", "past", "I haven't done {x} since college", &kStanceActivities},
      {"LIKES", "past", "{x} was my thing for years, not anymore", &kStanceThings},
      {"LIKES", "past", "I was a big fan of {x}, not so much now", &kStanceThings},
      {"HAS_HABIT", "past", "I did {x} for years, but not anymore", &kStanceActivities},
      {"OWNS", "past", "I had a {x} for a while, not anymore", &kStanceOwned},
      // More hypotheticals: conditionals (antecedent and consequent), self-questions, plans.
      {"OWNS", "hypothetical", "if I had a {x}, I'd use it every day", &kStanceOwned},
      {"OWNS", "hypothetical", "I'd get a {x} if I had the space", &kStanceOwned},
      {"OWNS", "hypothetical", "what if I got a {x}?", &kStanceOwned},
      {"OWNS", "hypothetical", "I'm thinking of getting a {x}", &kStanceOwned},
      {"OWNS", "hypothetical", "maybe one day I'll buy a {x}", &kStanceOwned},
      {"OWNS", "hypothetical", "if I ever buy a {x}, I'll take it to the lake", &kStanceOwned},
      {"HAS_PET", "hypothetical", "if we had a yard, we'd get a {x}", &kPets},
      {"HAS_HABIT", "hypothetical", "if I lived closer, I'd go {x} every weekend", &kStanceActivities},
      {"LIKES", "hypothetical", "I might try {x} one day", &kStanceActivities},
      {"LIKES", "hypothetical", "maybe I'd enjoy {x} if I gave it a chance", &kStanceThings},
      {"LIVES_IN", "hypothetical", "if I moved to {x}, I'd learn the language", &kPlaces},
      // Reported speech with a named holder (the name is the head, not the speaker).
      {"DISLIKES", "reported", "{n} hates {x}", &kStanceThings},
      {"LIKES", "reported", "{n} is obsessed with {x}", &kStanceThings},
      {"LIKES", "reported", "my {f} {n} loves {x}", &kStanceThings},
      {"DISLIKES", "reported", "my {p} {n} can't stand {x}", &kStanceThings},
      {"LIKES", "reported", "{n} from work swears by {x}", &kStanceThings},
      {"OWNS", "reported", "{n} has a {x}", &kStanceOwned},
      {"ALLERGIC_TO", "reported", "{n} is allergic to {x}", &kAllergens},
      {"HAS_HABIT", "reported", "{n} goes {x} every weekend", &kStanceActivities},
      {"AVOIDS", "reported", "{n} doesn't eat {x}", &kHouseholdFoods},
      {"LIKES", "reported", "I think {n} really likes {x}", &kStanceThings},
      // negatives: questions, the addressee, one-off events, names that hold nothing
      {"", "", "I ran into {n} at the store yesterday", &kStanceThings}, {"", "", "say hi to {n} for me!", &kStanceThings},
      {"", "", "thanks, {n}, that helps a lot", &kStanceThings},
      {"", "", "do you like {x}?", &kLikeThings}, {"", "", "have you ever tried {x}?", &kActivities},
      {"", "", "you love {x}, right?", &kLikeThings}, {"", "", "what's your favorite thing about {x}?", &kLikeThings},
      {"", "", "I went to see a show about {x} yesterday", &kLikeThings}, {"", "", "that {x} looks amazing!", &kOwned},
      {"", "", "your {x} is adorable!", &kPets}, {"", "", "is your {x} okay?", &kKin},
      {"", "", "did you move to {x}?", &kPlaces}, {"", "", "are you a {x}?", &kJobs},
      {"", "", "don't you love {x}?", &kStanceThings}, {"", "", "you never miss {x}, do you?", &kStanceThings},
      {"", "", "is your family {x}?", &kDiets}, {"", "", "would you ever try {x}?", &kStanceThings},
  };
  return t;
}

// Idioms of taste and need (session 31): the statements the fresh-phrasing dev sets miss are
// idioms the templates above never show. Written from general English; none copied from an
// evaluation file. A separate list with its own draws, so the drills above stay as they were.
const std::vector<Tmpl>& IdiomTemplates() {
  static const std::vector<Tmpl> t = {
      {"LIKES", "asserted", "I'm a sucker for {x}", &kStanceThings},
      {"LIKES", "asserted", "{x} is my go-to", &kStanceThings},
      {"LIKES", "asserted", "you can't beat {x}", &kStanceThings},
      {"LIKES", "asserted", "{x} is my jam", &kStanceThings},
      {"LIKES", "asserted", "I have a real weakness for {x}", &kStanceThings},
      {"LIKES", "asserted", "give me {x} any day of the week", &kStanceThings},
      {"LIKES", "asserted", "{x} is my guilty pleasure", &kStanceThings},
      {"LIKES", "asserted", "I could happily live on {x}", &kStanceThings},
      {"LIKES", "asserted", "{x} is my happy place", &kStanceActivities},
      {"LIKES", "asserted", "I'm always up for {x}", &kStanceActivities},
      {"LIKES", "asserted", "{x} is very much my cup of tea", &kStanceThings},
      {"LIKES", "asserted", "count me in for {x} any time", &kStanceActivities},
      {"LIKES", "asserted", "{x} really does it for me", &kStanceThings},
      {"LIKES", "asserted", "I'd choose {x} over anything else", &kStanceThings},
      {"LIKES", "asserted", "nothing beats {x}", &kStanceThings},
      {"LIKES", "asserted", "I'm completely hooked on {x}", &kStanceThings},
      {"LIKES", "asserted", "{x} hits the spot every time", &kStanceThings},
      {"LIKES", "asserted", "{x} really pays off for me", &kStanceActivities},
      {"LIKES", "asserted", "{x} makes me feel great", &kStanceActivities},
      {"LIKES", "asserted", "I keep coming back to {x}", &kStanceThings},
      {"LIKES", "asserted", "{x} is the one for me", &kStanceThings},
      {"DISLIKES", "asserted", "{x} drives me up the wall", &kStanceThings},
      {"DISLIKES", "asserted", "I can't be doing with {x}", &kStanceThings},
      {"DISLIKES", "asserted", "{x} does nothing for me", &kStanceThings},
      {"DISLIKES", "asserted", "you won't catch me anywhere near {x}", &kStanceThings},
      {"DISLIKES", "asserted", "{x} makes my skin crawl", &kStanceThings},
      {"DISLIKES", "asserted", "I've had it up to here with {x}", &kStanceThings},
      {"DISLIKES", "asserted", "{x} is a hard pass for me", &kStanceThings},
      {"DISLIKES", "asserted", "{x} leaves me cold", &kStanceThings},
      {"DISLIKES", "asserted", "count me out when it comes to {x}", &kStanceActivities},
      {"DISLIKES", "asserted", "{x} is the bane of my life", &kStanceThings},
      {"DISLIKES", "asserted", "I'd rather stay home than sit through {x}", &kStanceThings},
      {"ALLERGIC_TO", "asserted", "{x} makes me break out in a rash", &kAllergens},
      {"ALLERGIC_TO", "asserted", "my throat swells up if I have {x}", &kAllergens},
      {"ALLERGIC_TO", "asserted", "{x} would land me in the ER", &kAllergens},
      {"ALLERGIC_TO", "asserted", "I carry an EpiPen because of {x}", &kAllergens},
      {"ALLERGIC_TO", "asserted", "my body can't handle {x}", &kAllergens},
      {"USES", "asserted", "I swear by {x}", &kTools},
      {"USES", "asserted", "I run my whole life through {x}", &kTools},
      {"USES", "asserted", "{x} is open on my phone all day", &kTools},
      {"FOLLOWS_DIET", "asserted", "I stick to {x} food", &kDiets},
      {"FOLLOWS_DIET", "asserted", "{x} is how I eat these days", &kDiets},
      {"HAS_HABIT", "asserted", "{x} is a fixture of my week", &kStanceActivities},
      {"HAS_HABIT", "asserted", "you'll find me {x} most Saturdays", &kStanceActivities},
      // The same idioms about the addressee, or as questions: no fact of the speaker.
      {"", "", "are you a sucker for {x} too?", &kStanceThings},
      {"", "", "is {x} your cup of tea?", &kStanceThings},
      {"", "", "does {x} drive you up the wall?", &kStanceThings},
      {"", "", "I took the day off for {x}", &kStanceActivities},
  };
  return t;
}

std::vector<AnnotatedTurn> Generate(const std::vector<Tmpl>& T, const char* prefix, int n, uint64_t seed) {
  std::mt19937_64 g(seed);
  auto pick = [&g](const V& v) -> const std::string& { return v[g() % v.size()]; };
  std::vector<AnnotatedTurn> out;
  for (int i = 0; i < n; ++i) {
    AnnotatedTurn a;
    a.id = fmt::format("{}/{}", prefix, i);
    a.speaker = pick(kNames);
    std::string& text = a.text;
    if (g() % 100 < 35) text += pick(kFiller) + " ";
    const int facts = g() % 100 < 20 ? 2 : 1;
    for (int k = 0; k < facts; ++k) {
      const Tmpl& t = T[g() % T.size()];
      std::string open = k == 0 ? pick(kOpen) : "";
      if (k > 0 && !text.empty() && text.back() != ' ') text += " ";
      const bool cap = text.empty() || text.back() == ' ' ? (open.empty() || open.back() == ' ') : false;
      text += open;
      const bool cap_body = open.empty() ? cap : (open.size() >= 2 && (open[open.size() - 2] == '.' || open[open.size() - 2] == '!'));
      const size_t base = text.size();
      const std::string x = pick(*t.tails);
      const std::string h = pick(kKin);
      const std::string nm = pick(kNames);
      const bool has_old = std::string_view(t.pattern).find("{o}") != std::string_view::npos;
      std::string o;
      while (has_old && (o.empty() || o == x)) o = pick(*t.tails);
      const bool has_friend = std::string_view(t.pattern).find("{f}") != std::string_view::npos;
      const std::string fw = has_friend ? pick(kFriendWords) : "";
      const bool has_person = std::string_view(t.pattern).find("{p}") != std::string_view::npos;
      const std::string pw = has_person ? pick(kPeopleWords) : "";
      int32_t xb = -1, xe = -1, hb = -1, he = -1, nb = -1, ne = -1, ob = -1, oe = -1, fb = -1, fe = -1;
      std::string body;
      for (const char* p = t.pattern; *p;) {
        if (p[0] == '{' && p[2] == '}') {
          const char c = p[1];
          const std::string& v = c == 'x' ? x : c == 'h' ? h : c == 'o' ? o : c == 'f' ? fw : c == 'p' ? pw : nm;
          const int32_t at = static_cast<int32_t>(base + body.size());
          if (c == 'x') { xb = at; xe = at + static_cast<int32_t>(v.size()); }
          if (c == 'h') { hb = at; he = at + static_cast<int32_t>(v.size()); }
          if (c == 'n') { nb = at; ne = at + static_cast<int32_t>(v.size()); }
          if (c == 'o') { ob = at; oe = at + static_cast<int32_t>(v.size()); }
          if (c == 'f') { fb = at; fe = at + static_cast<int32_t>(v.size()); }
          body += v;
          p += 3;
        } else {
          body.push_back(*p++);
        }
      }
      if (cap_body && !body.empty() && body[0] >= 'a' && body[0] <= 'z') body[0] = static_cast<char>(body[0] - 'a' + 'A');
      text += body;
      if (body.back() != '?') text += pick(kClose);
      if (!t.relation[0]) continue;
      GoldFact f;
      f.relation = t.relation;
      ParseModality(t.modality, &f.modality);
      f.tail_begin = xb;
      f.tail_end = xe;
      if (std::string(t.modality) == "reported") {
        f.head_is_speaker = false;
        f.head_begin = hb >= 0 ? hb : nb;
        f.head_end = hb >= 0 ? he : ne;
      }
      a.facts.push_back(f);
      if (ob >= 0) {
        GoldFact of;
        of.relation = t.relation;
        of.modality = Modality::kPast;
        of.tail_begin = ob;
        of.tail_end = oe;
        a.facts.push_back(of);
      }
      if (fb >= 0) {
        GoldFact ff;
        ff.relation = "HAS_FRIEND";
        ff.tail_begin = fb;
        ff.tail_end = fe;
        a.facts.push_back(ff);
      }
      if (t.kin_fact && hb >= 0) {
        GoldFact kf;
        kf.relation = "HAS_RELATIVE";
        kf.tail_begin = hb;
        kf.tail_end = he;
        a.facts.push_back(kf);
      }
    }
    if (g() % 100 < 25) text += " " + pick(kFiller);
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace

std::vector<AnnotatedTurn> GenerateDrills(int n, uint64_t seed) { return Generate(Templates(), "drill", n, seed); }

std::vector<AnnotatedTurn> GenerateIdiomDrills(int n, uint64_t seed) {
  return Generate(IdiomTemplates(), "idiom", n, seed);
}

}  // namespace ontomem::extract
