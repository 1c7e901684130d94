import type { LanguageBank } from './types';

export const es: LanguageBank = {
  and: 'y',
  tones: {
    formal: {
      taglines: [
        'Una elección meditada para altas exigencias.',
        'Calidad, precisión y fiabilidad.',
      ],
      openings: [
        '{subject} combina un rendimiento fiable con un diseño cuidadosamente pensado.',
        'Nos complace presentarle {subject}, desarrollado para cumplir los requisitos más exigentes.',
      ],
      closings: [
        'Para quienes valoran la calidad, {subject} representa una inversión sólida y duradera.',
        'Le invitamos a descubrir cómo {subject} puede apoyar sus objetivos.',
      ],
      adjectives: ['refinado', 'fiable', 'preciso', 'esmerado'],
    },
    casual: {
      taglines: ['Fácil, bueno y hecho para ti.', 'Justo lo que de verdad vas a usar.'],
      openings: [
        'Te presentamos {subject}: fácil de querer y aún más fácil de usar.',
        'Hablemos un momento de {subject}.',
      ],
      closings: [
        'Prueba {subject} y cuéntanos qué te parece.',
        'La verdad, con {subject} todo resulta un poco más fácil.',
      ],
      adjectives: ['práctico', 'cercano', 'sencillo', 'relajado'],
    },
    persuasive: {
      taglines: ['La mejora que estabas esperando.', '¿Por qué conformarse con menos?'],
      openings: [
        'Imagine todo lo que podría lograr con {subject}.',
        '{subject} es la elección inteligente, y aquí está el porqué.',
      ],
      closings: [
        'Elija {subject} hoy y note la diferencia desde el primer día.',
        'No espere más: {subject} está listo para usted.',
      ],
      adjectives: ['excepcional', 'imbatible', 'sobresaliente', 'irresistible'],
    },
    playful: {
      taglines: [
        'Aviso: puede provocar sonrisas espontáneas.',
        '¡Preparados, listos, a disfrutar!',
      ],
      openings: [
        '¡Saluda a {subject}, tu nuevo cómplice favorito!',
        'Giro inesperado: {subject} es aún mejor de lo que suena.',
      ],
      closings: [
        '¡Anda, date un capricho con {subject}!',
        '{subject}: porque lo ordinario está sobrevalorado.',
      ],
      adjectives: ['chispeante', 'travieso', 'encantador', 'divertidísimo'],
    },
  },
  keywordSentences: [
    'En cuanto a {keyword}, el resultado es {adj} desde el primer momento.',
    'Su enfoque de {keyword} es {adj} y está bien resuelto.',
    'Fíjese en {keyword}: ahí es donde {subject} realmente destaca.',
  ],
  detailSentences: [
    'Desde {keywords}, cada aspecto se ha pensado para usted.',
    'El resultado es {adj}, práctico y listo para el día a día.',
    'Cada pequeño detalle suma una experiencia realmente {adj}.',
  ],
};
