import type { LanguageBank } from './types';

export const de: LanguageBank = {
  and: 'und',
  tones: {
    formal: {
      taglines: [
        'Eine durchdachte Wahl für hohe Ansprüche.',
        'Qualität, Präzision und Verlässlichkeit.',
      ],
      openings: [
        '{subject} verbindet zuverlässige Leistung mit einer sorgfältig durchdachten Gestaltung.',
        'Wir freuen uns, Ihnen {subject} vorzustellen, entwickelt für höchste Anforderungen.',
      ],
      closings: [
        'Für alle, die Wert auf Qualität legen, ist {subject} eine lohnende Investition.',
        'Wir laden Sie ein zu entdecken, wie {subject} Ihre Ziele unterstützt.',
      ],
      adjectives: ['durchdacht', 'zuverlässig', 'präzise', 'hochwertig'],
    },
    casual: {
      taglines: ['Einfach, gut und für dich gemacht.', 'Genau das, was du wirklich brauchst.'],
      openings: [
        'Das ist {subject}: leicht zu mögen und noch leichter zu benutzen.',
        'Lass uns kurz über {subject} reden.',
      ],
      closings: [
        'Probier {subject} einfach aus und sag uns, wie du es findest.',
        'Mal ehrlich: Mit {subject} wird vieles ein bisschen leichter.',
      ],
      adjectives: ['praktisch', 'locker', 'unkompliziert', 'sympathisch'],
    },
    persuasive: {
      taglines: [
        'Das Upgrade, auf das Sie gewartet haben.',
        'Warum sich mit weniger zufriedengeben?',
      ],
      openings: [
        'Stellen Sie sich vor, was Sie mit {subject} alles erreichen können.',
        '{subject} ist die kluge Wahl, und zwar aus gutem Grund.',
      ],
      closings: [
        'Entscheiden Sie sich noch heute für {subject} und spüren Sie den Unterschied.',
        'Warten Sie nicht länger: {subject} ist bereit für Sie.',
      ],
      adjectives: ['herausragend', 'unschlagbar', 'überzeugend', 'unwiderstehlich'],
    },
    playful: {
      taglines: ['Achtung: Kann spontanes Lächeln auslösen.', 'Auf die Plätze, fertig, Freude!'],
      openings: [
        'Sag hallo zu {subject}, deinem neuen Lieblingskomplizen!',
        'Überraschung: {subject} ist noch besser, als es klingt.',
      ],
      closings: [
        'Na los, gönn dir {subject}!',
        '{subject}: weil gewöhnlich einfach langweilig ist.',
      ],
      adjectives: ['spritzig', 'verschmitzt', 'herrlich verspielt', 'fröhlich'],
    },
  },
  keywordSentences: [
    'Beim Thema {keyword} wirkt {subject} vom ersten Moment an {adj}.',
    'Der Umgang mit {keyword} ist {adj} und gut umgesetzt.',
    'Achten Sie auf {keyword}: Genau hier hebt sich {subject} ab.',
  ],
  detailSentences: [
    'Von {keywords}: Jedes Detail wurde mit Blick auf Sie gestaltet.',
    'Das Ergebnis ist {adj}, praktisch und bereit für den Alltag.',
    'Viele kleine Details sorgen für ein Erlebnis, das wirklich {adj} ist.',
  ],
};
