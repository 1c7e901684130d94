import type { LanguageBank } from './types';

export const fr: LanguageBank = {
  and: 'et',
  tones: {
    formal: {
      taglines: [
        'Un choix réfléchi pour des exigences élevées.',
        'Qualité, précision et fiabilité.',
      ],
      openings: [
        '{subject} associe des performances fiables à une conception soignée.',
        'Nous avons le plaisir de vous présenter {subject}, conçu pour répondre aux attentes les plus strictes.',
      ],
      closings: [
        'Pour qui recherche la qualité, {subject} constitue un investissement durable.',
        'Nous vous invitons à découvrir comment {subject} peut servir vos objectifs.',
      ],
      adjectives: ['raffiné', 'fiable', 'précis', 'soigné'],
    },
    casual: {
      taglines: ['Simple, sympa et fait pour vous.', 'Le genre de truc qu’on utilise vraiment.'],
      openings: [
        'Voici {subject} : facile à adopter, encore plus facile à utiliser.',
        'Alors, parlons un peu de {subject}.',
      ],
      closings: [
        'Essayez {subject} et dites-nous ce que vous en pensez.',
        'Franchement, avec {subject}, la vie devient un peu plus simple.',
      ],
      adjectives: ['pratique', 'sympa', 'simple', 'détendu'],
    },
    persuasive: {
      taglines: ['L’amélioration que vous attendiez.', 'Pourquoi vous contenter de moins ?'],
      openings: [
        'Imaginez tout ce que vous pourriez faire avec {subject}.',
        '{subject} est le choix malin, et voici pourquoi.',
      ],
      closings: [
        'Choisissez {subject} dès aujourd’hui et sentez la différence.',
        'N’attendez plus : {subject} vous attend.',
      ],
      adjectives: ['exceptionnel', 'imbattable', 'remarquable', 'irrésistible'],
    },
    playful: {
      taglines: ['Attention : risque de sourire spontané.', 'Prêts, partez, plaisir !'],
      openings: [
        'Dites bonjour à {subject}, votre nouveau complice préféré !',
        'Rebondissement : {subject} est encore mieux qu’on ne le croit.',
      ],
      closings: [
        'Allez, faites-vous plaisir avec {subject} !',
        '{subject} : parce que l’ordinaire, c’est surfait.',
      ],
      adjectives: ['pétillant', 'malicieux', 'réjouissant', 'espiègle'],
    },
  },
  keywordSentences: [
    'Côté {keyword}, le résultat est {adj} dès le premier instant.',
    'Son approche de {keyword} est {adj} et bien pensée.',
    'Regardez de près {keyword} : c’est là que {subject} se distingue vraiment.',
  ],
  detailSentences: [
    'De {keywords}, chaque aspect a été pensé pour vous.',
    'Le résultat est {adj}, pratique et prêt pour le quotidien.',
    'Chaque petit détail contribue à une expérience vraiment {adj}.',
  ],
};
