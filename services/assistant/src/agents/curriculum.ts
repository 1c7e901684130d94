/** One of the five onboarding steps of the course curriculum (the onboarding agent's own definition). */
export interface CurriculumStep {
  step: number;
  title: string;
  goal: string;
  guidance: string[];
  confirm: string;
}

export const CURRICULUM: readonly CurriculumStep[] = [
  {
    step: 1,
    title: 'Course topic and objectives',
    goal: 'Pin down what the course teaches, for whom, and what learners can do at the end.',
    guidance: [
      'Name the topic in one sentence and the audience (for example beginners, working professionals).',
      'Write 3-5 learning objectives that start with a measurable verb: build, explain, analyse, compare, create.',
      'State the prerequisites and the expected weekly effort in hours.',
    ],
    confirm:
      'Please confirm that your topic, audience and learning objectives are set (reply "done") so we can move on to step 2: modules and lessons.',
  },
  {
    step: 2,
    title: 'Modules and lessons',
    goal: 'Turn the objectives into a sequence of modules, each made of short lessons.',
    guidance: [
      'Plan 4-8 modules; each module serves at least one learning objective.',
      'Split every module into 3-6 lessons of 5-15 minutes each.',
      'Order modules from foundations to application and end with a capstone or project module.',
    ],
    confirm:
      'Please confirm that your module and lesson outline is complete (reply "done") so we can move on to step 3: interactive content and assignments.',
  },
  {
    step: 3,
    title: 'Interactive content and assignments',
    goal: 'Make learners practise: every module gets an activity and a graded or self-checked assignment.',
    guidance: [
      'Add one hands-on activity per module (exercise, worksheet, simulation or case study).',
      'Write a rubric for each graded assignment with 3-4 criteria.',
      'Mix formats: video for demonstrations, text for reference, interactive exercises for practice.',
    ],
    confirm:
      'Please confirm that the interactive content and assignments are in place (reply "done") so we can move on to step 4: engagement strategies.',
  },
  {
    step: 4,
    title: 'Engagement strategies',
    goal: 'Keep learners active and connected with quizzes, discussion forums and feedback.',
    guidance: [
      'Add a short quiz (3-5 questions) at the end of each module with instant feedback.',
      'Open a discussion forum with one prompt per module and answer questions within 48 hours.',
      'Plan progress nudges: a welcome message, weekly reminders and a badge or certificate at completion.',
    ],
    confirm:
      'Please confirm that quizzes, discussion forums and your engagement plan are set up (reply "done") so we can move on to step 5: finalize the course and launch plan.',
  },
  {
    step: 5,
    title: 'Finalize course and launch plan',
    goal: 'Review everything, publish, and plan the launch.',
    guidance: [
      'Run a quality review: every objective is covered by lessons, activities and a quiz; links and media work.',
      'Set price, enrolment dates and the course page description; preview the course as a learner.',
      'Plan the launch: an announcement email, a social post, an early-bird offer, and a feedback survey after the first module.',
    ],
    confirm:
      'Please confirm the launch plan (reply "confirmed") and I will mark your course onboarding as complete.',
  },
];

export function curriculumStep(step: number): CurriculumStep {
  const found = CURRICULUM.find((s) => s.step === step);
  if (!found) throw new Error(`the curriculum has no step ${step}`);
  return found;
}
