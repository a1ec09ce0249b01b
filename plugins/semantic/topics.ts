/**
 * Paragraphs on unrelated topics, written for chunkd's tests and benchmark: a semantic chunker
 * should cut where one topic ends and the next begins.
 */
export const TOPICS: Record<string, string[]> = {
  cooking: [
    'Start the sauce by melting butter in a heavy pan over low heat.',
    'Add the chopped onions and garlic and cook them slowly until they are soft and sweet.',
    'Stir in the crushed tomatoes, a pinch of salt, and a spoonful of sugar.',
    'Let the sauce simmer for half an hour while you boil the pasta in salted water.',
    'Taste the sauce and season it with black pepper, fresh basil, and a little olive oil.',
    'Drain the pasta, toss it with the sauce, and grate plenty of parmesan cheese on top.',
    'Serve the dish hot with warm bread and a green salad.',
  ],
  astronomy: [
    'The telescope was pointed at a distant galaxy far beyond the Milky Way.',
    'Astronomers measured the light from its stars to estimate how fast it moves away from us.',
    'Its spectrum showed a strong red shift, a sign of the expansion of the universe.',
    'Nearby, a planet orbits its star once every four days, closer than Mercury orbits the Sun.',
    'The gravity of a black hole at the center of the galaxy bends the light of the stars around it.',
    'Each night the observatory records the brightness of comets, asteroids, and supernovae.',
    'Space missions send probes to the outer planets and the moons of Jupiter and Saturn.',
  ],
  football: [
    'The home team scored a late goal to win the match in front of a loud crowd.',
    'Their striker beat two defenders and shot the ball past the goalkeeper into the net.',
    'The coach praised the players for their pressing and their passing in midfield.',
    'In the first half the referee showed a yellow card after a hard tackle.',
    'The visiting side had more possession but could not score against the defense.',
    'Fans sang in the stadium until the final whistle, celebrating the victory of their club.',
    'Next week the league leaders travel away for a cup game against their rivals.',
  ],
};

/** Topic paragraphs joined by blank lines, and where each topic's first sentence starts (UTF-16). */
export function topicText(order: string[] = Object.keys(TOPICS), newline = '\n'): { text: string; starts: number[] } {
  let text = '';
  const starts: number[] = [];
  for (const [k, topic] of order.entries()) {
    if (k > 0) text += newline + newline;
    starts.push(text.length);
    text += TOPICS[topic]!.join(' ');
  }
  return { text, starts };
}
