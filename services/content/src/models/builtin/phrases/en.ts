import type { LanguageBank } from './types';

export const en: LanguageBank = {
  and: 'and',
  tones: {
    formal: {
      taglines: [
        'A considered choice for demanding standards.',
        'Quality, precision and reliability.',
        'Designed with care and purpose.',
      ],
      openings: [
        '{subject} combines dependable performance with a carefully considered design.',
        'We are pleased to present {subject}, developed to meet exacting requirements.',
        '{subject} offers a measured, reliable answer to everyday needs.',
      ],
      closings: [
        'For those who value quality, {subject} represents a sound and lasting investment.',
        'We invite you to discover how {subject} can support your objectives.',
        'In every respect, {subject} reflects a commitment to excellence.',
      ],
      adjectives: ['refined', 'dependable', 'precise', 'well-considered'],
    },
    casual: {
      taglines: [
        'Easy, good, and made for you.',
        'The kind of thing you will actually use.',
        'Simple stuff that just works.',
      ],
      openings: [
        'Meet {subject}: easy to like and even easier to use.',
        "So, let's talk about {subject} for a second.",
        "Looking for {subject}? You're in the right place.",
      ],
      closings: [
        'Give {subject} a try and see what you think.',
        'Honestly, {subject} just makes life a little easier.',
        'Grab {subject} and enjoy it, no fuss needed.',
      ],
      adjectives: ['easygoing', 'handy', 'friendly', 'no-fuss'],
    },
    persuasive: {
      taglines: [
        'The upgrade you have been waiting for.',
        'Why settle for less?',
        'Built to win you over.',
      ],
      openings: [
        'Imagine what you could do with {subject} on your side.',
        '{subject} is the smart choice, and here is why.',
        "Don't settle: {subject} delivers where others fall short.",
      ],
      closings: [
        'Choose {subject} today and feel the difference from day one.',
        "Don't wait: {subject} is ready when you are.",
        'Make the switch to {subject} and never look back.',
      ],
      adjectives: ['outstanding', 'unbeatable', 'game-changing', 'irresistible'],
    },
    playful: {
      taglines: [
        'Warning: may cause spontaneous smiling.',
        'Fun, and then some.',
        'Ready, set, delight!',
      ],
      openings: [
        'Say hello to {subject}, your new favorite sidekick!',
        'Plot twist: {subject} is even better than it sounds.',
        'Ta-da! {subject} has entered the chat.',
      ],
      closings: [
        'Go on, treat yourself to {subject}. You know you want to!',
        '{subject}: because ordinary is overrated.',
        'Life is short, so make it fun with {subject}!',
      ],
      adjectives: ['delightful', 'cheeky', 'sparkling', 'wonderfully quirky'],
    },
  },
  keywordSentences: [
    'When it comes to {keyword}, {subject} feels {adj} from the very first moment.',
    'Its approach to {keyword} is {adj} and thoughtfully executed.',
    'Pay attention to {keyword}: this is where {subject} truly stands out.',
    'Every detail of {keyword} has been shaped to be {adj}.',
  ],
  detailSentences: [
    'From {keywords}, every aspect has been shaped with you in mind.',
    'The result is {adj}, practical and ready for daily use.',
    'It brings together {keywords} in one {adj} package.',
    'Small touches add up to an experience that is genuinely {adj}.',
  ],
};
