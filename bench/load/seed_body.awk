# Prints the JSON body of one ingest request: turns [first, first+count) of user `user`, made
# from templates so that users differ and queries in load.lua find something.
# awk -v user=u3 -v first=0 -v count=100 -f seed_body.awk
BEGIN {
  srand(length(user) * 7919 + substr(user, 2) * 104729 + first);
  ns = split("Ana Ben", speakers, " ");
  nt = split("I watched %s last night and loved it|My sister is allergic to %s so we avoid it|" \
             "We are planning a trip to %s next month|I started learning %s on weekends|" \
             "The kids played %s in the park all afternoon|Work has been busy, the meeting about %s ran late|" \
             "I cooked %s for dinner with my wife|We adopted a puppy and named it %s|" \
             "I finished reading a novel about %s|The doctor said I should try %s|" \
             "We listened to %s at the concert|I painted a picture of %s for the gallery", tmpl, "|");
  nw = split("titanic pizza peanuts japan paris piano guitar soccer tennis sushi lasagna biscuit " \
             "max hiking yoga jazz rock mountains beaches dragons gardens football chess pasta " \
             "london italy violin basketball marathon swimming curry tacos museums sunsets", words, " ");
  printf "{\"turns\":[";
  for (i = 0; i < count; i++) {
    n = first + i;
    s = speakers[n % ns + 1];
    t = sprintf(tmpl[int(rand() * nt) + 1], words[int(rand() * nw) + 1]);
    printf "%s{\"id\":\"D%d:%d\",\"speaker\":\"%s\",\"text\":\"%s (%s %d)\",\"time\":%.0f,\"session\":\"session_%d\"}",
           (i ? "," : ""), int(n / 20) + 1, n % 20 + 1, s, t, user, n, 1700000000000 + n * 60000, int(n / 20) + 1;
  }
  printf "]}\n";
}
