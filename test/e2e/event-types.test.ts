import { describeEventTypes } from '../suites/event-types';
import { embedded } from '../suites/target';

describeEventTypes(embedded);
